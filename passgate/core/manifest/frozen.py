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
    """The typed manifest a record froze; None when the record holds none (the report then applies
    the model's default scoring contract and shows an empty configuration, the gate reads each
    section's defaults).

    A frozen manifest that is there and cannot be rebuilt (not JSON, a required key missing, an unknown
    key, a value of the wrong type) is refused with a ConfigError naming the key: deciding from
    defaults in its place would differ from what was run, silently.
    """
    if not canonical_json:
        return None
    try:
        data = json.loads(canonical_json)
    except ValueError as exc:
        raise ConfigError(f"not JSON ({exc})", path=SOURCE) from None
    return build_section(Manifest, data, (), {}, SOURCE)
