"""The review page: a person approves, edits or removes each item that survived the automatic stages, seeing
image, question, rewrite, answer, caption, the filter's trials and the judge's checks. Store (`app.py`: the
curation store's `review` decisions), page builder (`page.py`) and server (`server.py`, through
`vcot.local_site`) are separate modules, as in `vcot.annotate` (docs/design.md, "A new page")."""
