"""nbgrader's cell-metadata check, with its JSON schema compiled once per process.

nbgrader's ``CheckCellMetadata`` validates every cell with ``jsonschema.validate``,
which checks the schema itself on each call: measured, that was about a third
of the grading process's CPU per notebook. :class:`CheckCellMetadataOnce` runs
the same checks (nbgrader's own validator class, cell by cell, the same errors)
with one compiled validator.
"""

from __future__ import annotations

import functools
import json
import traceback

import jsonschema
from jsonschema.exceptions import best_match
from nbgrader.nbgraderformat import MetadataValidator, SchemaTooNewError, SchemaTooOldError, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator
from nbgrader.preprocessors import CheckCellMetadata


@functools.lru_cache(maxsize=4)
def _compiled(schema_json: str):
    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


class _CompiledSchemaCheck(BaseMetadataValidator):
    """``BaseMetadataValidator.validate_cell`` with a compiled schema (placed after
    nbgrader's validator in the method order, so its ``super()`` call lands here)."""

    def validate_cell(self, cell) -> None:
        if "nbgrader" not in cell.metadata:
            return
        version = cell.metadata["nbgrader"].get("schema_version", 0)
        if version < self.schema_version:
            raise SchemaTooOldError(f"Outdated schema version: {version} (expected {self.schema_version})",
                                    version, self.schema_version)
        if version > self.schema_version:
            raise SchemaTooNewError(f"Schema version is too new: {version} (expected {self.schema_version})",
                                    version, self.schema_version)
        error = best_match(_compiled(json.dumps(self.schema, sort_keys=True)).iter_errors(cell.metadata["nbgrader"]))
        if error is not None:
            raise error


class FastMetadataValidator(MetadataValidator, _CompiledSchemaCheck):
    """nbgrader's current metadata validator, its schema check compiled once."""


class CheckCellMetadataOnce(CheckCellMetadata):
    """:class:`nbgrader.preprocessors.CheckCellMetadata` with :class:`FastMetadataValidator`."""

    def preprocess(self, nb, resources):
        try:
            FastMetadataValidator().validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg)
        return nb, resources
