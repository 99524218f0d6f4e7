"""The use cases, once for every edge: live matches, replays, jobs and tournaments with their drivers, listing and
results, and validation as typed errors (:mod:`services.app.errors`).

The edges translate: the gRPC servicers (``services/*_service.py``), the web app (``services/web/``) and the CLI
(``services/cli/``) call in here and never into each other (``tests/test_layers.py``). A refusal is a typed error
(:mod:`services.app.errors`) that each edge maps to its status, HTTP status or exit code in one table. A resource's
projection is its API message (the generated stubs of ``protos/``, the one thing of an edge's that the app imports):
the gRPC servicers answer with it, and the web maps it to its JSON (:mod:`services.web.mapping`: jobs, replays,
games, live matches' views and moves).
"""
