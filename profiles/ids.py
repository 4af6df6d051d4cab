"""Id validation lives in `config.ids` (shared with trace storage); re-exported here for the store."""

from config.ids import MAX_NAMESPACE_DEPTH, InvalidIdError, validate_key, validate_label, validate_namespace

__all__ = ["MAX_NAMESPACE_DEPTH", "InvalidIdError", "validate_key", "validate_label", "validate_namespace"]
