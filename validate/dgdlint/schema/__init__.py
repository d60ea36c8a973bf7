"""The schema stage (OpenAPI structure, then CEL rules and list keys) and the schemas it reads.

Modules: `openapi` (a CRD's schema as JSON Schema), `crd` (CRDs the user gives), `bundled` (the
schemas/ tree per Dynamo release), `builtin` (Kubernetes' own kinds), `nulls` (nulls as the API server drops them),
`messages` (findings), `stage`."""

from dgdlint.schema.builtin import BuiltinSchemas
from dgdlint.schema.crd import (
    CLUSTER,
    CrdError,
    CrdVersionSchema,
    crd_sources_from_env,
    crd_versions,
    read_crd_source,
    read_crds_from_cluster,
)
from dgdlint.schema.nulls import prune_declared_nulls, prune_nulls, zero_nulls
from dgdlint.schema.openapi import openapi_to_jsonschema
from dgdlint.schema.stage import SchemaStage

__all__ = ["CLUSTER", "BuiltinSchemas", "CrdError", "CrdVersionSchema", "SchemaStage", "crd_sources_from_env",
           "crd_versions", "openapi_to_jsonschema", "prune_declared_nulls", "prune_nulls", "read_crd_source",
           "read_crds_from_cluster", "zero_nulls"]
