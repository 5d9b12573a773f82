"""Model clients and `make_client`, which turns a model name (+ optional base URL) into one."""

from __future__ import annotations

import os

from vcot.engine.clients.base import CallContext, ModelClient
from vcot.engine.errors import ConfigError

PROVIDERS = ("openai", "anthropic", "google")
KEY_ENVS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "google": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}


def _key(envs: tuple[str, ...], what: str) -> tuple[str, str]:
    for env in envs:
        value = os.environ.get(env, "").strip()
        if value:
            return value, env
    names = " or ".join(envs)
    raise ConfigError(f"{what} needs an API key: set the environment variable {names}")


def endpoint_key(base_url: str | None, api_key_env: str | None,
                 default_envs: tuple[str, ...] = KEY_ENVS["openai"]) -> str | None:
    """The API key for an OpenAI-compatible endpoint, by the rule `vcot eval` follows everywhere.

    A named variable is read (ConfigError when unset); with a base URL and no name, no key (a provider key
    never travels to an arbitrary URL implicitly); without either, the provider's usual variables (None
    when unset).
    """
    if api_key_env:
        return _key((api_key_env,), f"endpoint {base_url or 'api.openai.com'}")[0]
    if base_url:
        return None
    return next((v for env in default_envs if (v := os.environ.get(env, "").strip())), None)


def make_client(model: str, base_url: str | None = None, api_key_env: str | None = None,
                tag_requests: bool = False, max_connections: int = 256) -> ModelClient:
    """A client for `model`.

    - `chance`: the built-in offline baseline.
    - with `base_url`: any OpenAI-compatible endpoint; `model` is sent as-is. A key is read only from
      `api_key_env` when given — a provider key is never sent to an arbitrary URL implicitly.
    - `openai/NAME`, `anthropic/NAME`, `google/NAME`: the provider's API with its usual key variable
      (or `api_key_env`).
    """
    if base_url:
        if model == "chance" or not model.strip():
            # Sent as it is, "chance" made every request ask the server for a model it does not serve.
            raise ConfigError("chance is the built-in offline baseline; name the served model with --model"
                              if model == "chance" else "name the served model with --model")
        key, env = _key((api_key_env,), f"endpoint {base_url}") if api_key_env else (None, None)
        from vcot.engine.clients.openai_compat import OpenAICompatClient

        return OpenAICompatClient(model, base_url, key, provider="openai-compatible", key_env=env,
                                  tag_requests=tag_requests, max_connections=max_connections)
    if model == "chance":
        from vcot.engine.clients.chance import ChanceClient

        return ChanceClient()
    if "/" not in model:
        raise ConfigError(f"unknown model {model!r}: use 'chance', PROVIDER/NAME with a provider among "
                          f"{', '.join(PROVIDERS)}, or --base-url URL --model NAME for an OpenAI-compatible server")
    provider, name = model.split("/", 1)
    if provider not in PROVIDERS:
        raise ConfigError(f"unknown provider {provider!r} in model {model!r}; known providers: "
                          f"{', '.join(PROVIDERS)} (or pass --base-url for an OpenAI-compatible server)")
    if not name:
        raise ConfigError(f"model {model!r} lacks a name after the provider")
    key, env = _key((api_key_env,) if api_key_env else KEY_ENVS[provider], f"model {model}")
    if provider == "openai":
        from vcot.engine.clients.openai_compat import OpenAICompatClient

        return OpenAICompatClient(name, None, key, provider="openai", key_env=env, tag_requests=tag_requests,
                                  max_connections=max_connections)
    if provider == "anthropic":
        from vcot.engine.clients.anthropic_client import AnthropicClient

        return AnthropicClient(name, key, env)
    from vcot.engine.clients.google_client import GoogleClient

    return GoogleClient(name, key, env)


def served_model(base_url: str, api_key_env: str | None = None, timeout: float = 10.0) -> str:
    """The one model an OpenAI-compatible endpoint lists (GET /models): what `vcot eval --base-url URL` asks
    for when no --model is given. ConfigError when nothing answers there, or it lists none or several."""
    import asyncio

    from vcot.engine.clients.openai_compat import OpenAICompatClient

    key, env = _key((api_key_env,), f"endpoint {base_url}") if api_key_env else (None, None)

    async def listed() -> list[str]:
        client = OpenAICompatClient("", base_url, key, provider="openai-compatible", key_env=env, max_connections=1)
        try:
            return await client.list_models(timeout)
        finally:
            await client.aclose()

    ids = list(dict.fromkeys(asyncio.run(listed())))
    if not ids:
        raise ConfigError(f"{base_url} lists no models; name the served model with --model")
    if len(ids) > 1:
        shown = ", ".join(ids[:20]) + (f", … ({len(ids)} in all)" if len(ids) > 20 else "")
        raise ConfigError(f"{base_url} lists {len(ids)} models: {shown}; choose one with --model")
    return ids[0]


__all__ = ["CallContext", "ModelClient", "make_client", "endpoint_key", "served_model", "PROVIDERS", "KEY_ENVS"]
