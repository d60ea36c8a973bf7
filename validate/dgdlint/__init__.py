"""dgdlint: validate NVIDIA Dynamo graph deployments (and the Cosmos3 Reasoner chart) before they reach a cluster."""

__version__ = "0.2.16"
