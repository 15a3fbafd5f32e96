"""The manifest a run froze, read back from its record as the typed model.

The record keeps the manifest's canonical JSON (`Manifest.canonical_json`). The report and the gate
rebuild it here, with the loader's own section builder, instead of reading the JSON as a dict: they
then decide from the same contracts, with the same defaults, that the run was started with.

The record is history, not a new request. A key the model gained after the record was written takes
the model's default, as it was left out of the canonical form, and the cross-checks a new manifest
must pass are not applied: a manifest that today's checks refuse at parse time (one that mixes
graders, say) still describes what was run.
"""

from __future__ import annotations

import json

from passgate.core.errors import ConfigError

from .load import build_section
from .model import Manifest

SOURCE = "the run's frozen manifest"


def frozen_manifest(canonical_json: str | None) -> Manifest | None:
    """The typed manifest a record froze, or None when it holds none that can be rebuilt: no manifest,
    text that is not JSON, a required key missing, an unknown key, a value of the wrong type.

    Every reader takes None as a record without its manifest row: the report applies the model's
    default scoring contract and shows an empty configuration, the gate reads each section's defaults.
    """
    if not canonical_json:
        return None
    try:
        return build_section(Manifest, json.loads(canonical_json), (), {}, SOURCE)
    except (ValueError, ConfigError):      # json's errors are ValueErrors
        return None
