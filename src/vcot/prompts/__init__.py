"""Every text vcot sends to a model: MIRA's templates (`templates`), the task guides (`text_cot_spec`).

The VAoT prompt and its acknowledgements live with the VAoT episode (`vcot.vaot.episode`), next to the
tool specs they describe. Any edit to these texts changes the prompt version recorded with every run.
"""
