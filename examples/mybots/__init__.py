"""The bots of docs/bots.md: a package of policies of one's own (``mybots.cautious:Cautious``)."""
