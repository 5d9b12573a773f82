"""Model clients and `make_client`, which turns a model name (+ optional base URL) into one."""

from __future__ import annotations

import os
from collections.abc import Sequence

from vcot.engine.clients.base import CallContext, ModelClient, display_url
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


def endpoint_key(
    base_url: str | None, api_key_env: str | None, default_envs: tuple[str, ...] = KEY_ENVS["openai"]
) -> str | None:
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


def make_client(
    model: str,
    base_url: str | Sequence[str] | None = None,
    api_key_env: str | None = None,
    tag_requests: bool = False,
    max_connections: int = 256,
    endpoint_concurrency: int | None = None,
) -> ModelClient:
    """A client for `model`.

    - `chance`: the built-in offline baseline.
    - with `base_url`: any OpenAI-compatible endpoint; `model` is sent as-is. A key is read only from
      `api_key_env` when given — a provider key is never sent to an arbitrary URL implicitly. Several URLs:
      one model served by each of them (`vcot.engine.endpoints.EndpointPool`, at most `endpoint_concurrency`
      requests in flight at each when given); one URL in a list is the same as one URL.
    - `openai/NAME`, `anthropic/NAME`, `google/NAME`: the provider's API with its usual key variable
      (or `api_key_env`).
    - `hf:PATH`: the transformers vision-language model in the local folder PATH, run in this process
      (`vcot.engine.clients.hf_local`, which lists the VCOT_HF_* environment variables it reads).
    """
    urls = [base_url] if isinstance(base_url, str) else list(base_url or [])
    if model.startswith("hf:"):
        if urls:
            raise ConfigError(
                "an hf: model runs in this process; drop --base-url (or serve the folder and name "
                "the served model with --model)"
            )
        from vcot.engine.clients.hf_local import HFLocalClient

        return HFLocalClient(model)
    if endpoint_concurrency is not None and len(urls) < 2:
        raise ConfigError("--endpoint-concurrency needs several --base-url (with one, --concurrency bounds it)")
    if urls:
        if model == "chance" or not model.strip():
            # Sent as it is, "chance" made every request ask the server for a model it does not serve.
            raise ConfigError(
                "chance is the built-in offline baseline; name the served model with --model"
                if model == "chance"
                else "name the served model with --model"
            )
        key, env = _key((api_key_env,), f"endpoint {display_url(urls[0])}") if api_key_env else (None, None)
        if len(urls) > 1:
            from vcot.engine.endpoints import EndpointPool

            return EndpointPool(
                model,
                urls,
                key,
                key_env=env,
                tag_requests=tag_requests,
                max_connections=max_connections,
                per_endpoint_limit=endpoint_concurrency,
            )
        from vcot.engine.clients.openai_compat import OpenAICompatClient

        return OpenAICompatClient(
            model,
            urls[0],
            key,
            provider="openai-compatible",
            key_env=env,
            tag_requests=tag_requests,
            max_connections=max_connections,
        )
    if model == "chance":
        from vcot.engine.clients.chance import ChanceClient

        return ChanceClient()
    if "/" not in model:
        raise ConfigError(
            f"unknown model {model!r}: use 'chance', PROVIDER/NAME with a provider among "
            f"{', '.join(PROVIDERS)}, hf:PATH for a local transformers model folder, or "
            "--base-url URL --model NAME for an OpenAI-compatible server"
        )
    provider, name = model.split("/", 1)
    if provider not in PROVIDERS:
        raise ConfigError(
            f"unknown provider {provider!r} in model {model!r}; known providers: "
            f"{', '.join(PROVIDERS)} (or hf:PATH for a local transformers model folder, or pass "
            "--base-url for an OpenAI-compatible server)"
        )
    if not name:
        raise ConfigError(f"model {model!r} lacks a name after the provider")
    key, env = _key((api_key_env,) if api_key_env else KEY_ENVS[provider], f"model {model}")
    if provider == "openai":
        from vcot.engine.clients.openai_compat import OpenAICompatClient

        return OpenAICompatClient(
            name, None, key, provider="openai", key_env=env, tag_requests=tag_requests, max_connections=max_connections
        )
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

    return _one_model(base_url, list(dict.fromkeys(asyncio.run(listed()))))


def _one_model(base_url: str, ids: list[str]) -> str:
    if not ids:
        raise ConfigError(f"{base_url} lists no models; name the served model with --model")
    if len(ids) > 1:
        shown = ", ".join(ids[:20]) + (f", … ({len(ids)} in all)" if len(ids) > 20 else "")
        raise ConfigError(f"{base_url} lists {len(ids)} models: {shown}; choose one with --model")
    return ids[0]


def served_model_of_all(base_urls: Sequence[str], api_key_env: str | None = None, timeout: float = 10.0) -> str:
    """The one model every endpoint lists (what `vcot eval --base-url A --base-url B` asks for without
    --model), the endpoints asked together. ConfigError naming the endpoints when one lists none or several,
    cannot be reached, or they disagree."""
    import asyncio

    from vcot.engine.clients.openai_compat import OpenAICompatClient

    key, env = _key((api_key_env,), f"endpoint {display_url(base_urls[0])}") if api_key_env else (None, None)

    async def listed(url: str) -> str:
        client = OpenAICompatClient("", url, key, provider="openai-compatible", key_env=env, max_connections=1)
        try:
            return _one_model(display_url(url), list(dict.fromkeys(await client.list_models(timeout))))
        finally:
            await client.aclose()

    async def every() -> list[str | BaseException]:
        return await asyncio.gather(*(listed(u) for u in base_urls), return_exceptions=True)

    found = asyncio.run(every())
    problems = [str(f) for f in found if isinstance(f, BaseException)]
    if problems:
        raise ConfigError("; ".join(problems))
    models = dict(zip((display_url(u) for u in base_urls), (str(f) for f in found), strict=True))
    if len(set(models.values())) > 1:
        shown = ", ".join(f"{u} serves {m}" for u, m in models.items())
        raise ConfigError(f"the endpoints serve different models ({shown}); choose one with --model")
    return next(iter(models.values()))


__all__ = [
    "CallContext",
    "ModelClient",
    "make_client",
    "endpoint_key",
    "served_model",
    "served_model_of_all",
    "PROVIDERS",
    "KEY_ENVS",
]
