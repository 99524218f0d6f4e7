"""The use cases, once for every edge: live matches, replays, jobs and tournaments with their drivers, listing and
results, and validation as typed errors (:mod:`services.app.errors`).

The edges translate: the gRPC servicers (``services/*_service.py``), the web app (``services/web/``) and the CLI
(``services/cli/``) call in here and never into each other. A resource's projection is its API message (the
generated stubs of ``protos/``): the gRPC servicers answer with it, the web with its JSON mapping.
"""
