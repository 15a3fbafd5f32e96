"""The run manifest: its model (`model`), how it loads from YAML (`load`) and what each part may say
given the rest (`checks`). Everything else imports from here."""

from .frozen import frozen_manifest
from .load import build_section, load_manifest, parse_manifest, read_located_yaml
from .model import (
    INTERVAL_METHODS,
    LATER,
    MANIFEST_VERSION,
    CandidatesContract,
    ExecutionContract,
    FimContract,
    GateSection,
    GenerationContract,
    ImportSpec,
    IntervalSpec,
    LimitsSpec,
    Manifest,
    ModelSpec,
    PostprocessContract,
    Relaxation,
    RepairSpec,
    RerunSpec,
    ScoringContract,
    SecurityScanSpec,
    SeedSpec,
    TasksContract,
    TaskSetSpec,
    TimeoutSpec,
    dump_manifest,
    frozen_form,
    grader_of,
    replace,
    resolve_path,
    uses_languages,
)

__all__ = [
    "INTERVAL_METHODS", "LATER", "MANIFEST_VERSION", "CandidatesContract", "ExecutionContract", "FimContract", "GateSection",
    "GenerationContract", "ImportSpec", "IntervalSpec", "LimitsSpec", "Manifest", "ModelSpec", "PostprocessContract",
    "Relaxation", "RepairSpec", "RerunSpec", "ScoringContract", "SecurityScanSpec", "SeedSpec", "TaskSetSpec",
    "TasksContract", "TimeoutSpec", "build_section", "dump_manifest", "frozen_form",
    "frozen_manifest", "grader_of", "load_manifest",
    "parse_manifest", "read_located_yaml", "replace", "resolve_path", "uses_languages",
]
