"""The web page (replay viewer, jobs, live table) and its HTTP/JSON API: ``cardtable web`` serves :mod:`.app`."""
