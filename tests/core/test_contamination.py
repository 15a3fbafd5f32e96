"""Contamination: n-gram overlap of tasks with a corpus and of candidates with references, per task."""

import json

import pytest

from passgate.core.errors import ConfigError
from passgate.core.gate import contamination as cm
from passgate.core.gate import gather_facts, verdict
from passgate.core.record.store import Store
from tests.core.gate_kit import record_run, secure

PROMPT = ('def rolling_checksum(blocks: list[bytes], window: int) -> list[int]:\n'
          '    """Return the Adler-style checksum of every window of consecutive blocks, oldest first,\n'
          '    skipping windows that would run past the end of the list."""\n')
REFERENCE = PROMPT + ("    out = []\n    for start in range(len(blocks) - window + 1):\n"
                      "        a, b = 1, 0\n        for blk in blocks[start:start + window]:\n"
                      "            for byte in blk:\n                a = (a + byte) % 65521\n"
                      "                b = (b + a) % 65521\n        out.append((b << 16) | a)\n    return out\n")


def task(tid="P/0", prompt=PROMPT, exposure="holdout"):
    return cm.TaskText(tid, "product", exposure, prompt, REFERENCE if prompt == PROMPT else "", "")


def test_tokens_ignore_whitespace_and_case():
    assert cm.tokens("Def  f(x):\n\treturn X") == ["def", "f", "(", "x", ")", ":", "return", "x"]
    assert len(cm.ngrams(cm.tokens("a b c d e"), 3)) == 3


def test_a_task_copied_into_a_corpus_file_is_found():
    corpus = ["unrelated text\n", "# scraped snippet\n" + REFERENCE, "more unrelated text\n"]
    (ov,) = cm.task_overlaps([task()], corpus, 13)
    assert ov.matched == ov.compared and ov.fraction == 1.0


def test_an_unrelated_corpus_finds_nothing():
    (ov,) = cm.task_overlaps([task()], ["def add(a, b):\n    return a + b\n" * 50], 13)
    assert ov.matched == 0 and ov.compared > 0


def test_n_grams_span_line_breaks_and_reformatting():
    squashed = " ".join(PROMPT.split())            # one line, different spacing
    (ov,) = cm.task_overlaps([task()], [squashed[:80], squashed[80:]], 13)
    assert ov.matched > 0


def test_json_lines_corpora_are_decoded_so_escaped_newlines_do_not_hide_text(tmp_path):
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "train.jsonl").write_text(json.dumps({"text": PROMPT}) + "\n")
    (tmp_path / "corpus" / "blob.bin").write_bytes(b"\0\1\2" + PROMPT.encode())
    (ov,) = cm.task_overlaps([task()], cm.corpus_segments(tmp_path / "corpus"), 13)
    assert ov.matched > 0
    assert "2 files" in cm.corpus_fingerprint(tmp_path / "corpus")


def test_a_candidate_repeating_the_reference_is_a_reproduction_and_the_prompt_alone_is_not():
    assert cm.reference_overlap(PROMPT, REFERENCE, REFERENCE, 13).fraction == 1.0
    assert cm.reference_overlap(PROMPT, REFERENCE, PROMPT + "    return []\n", 13).fraction == 0.0


def test_a_reference_too_short_to_judge_gives_no_overlap():
    assert cm.reference_overlap(PROMPT, PROMPT + "    return []\n", PROMPT + "    return []\n", 13) is None


# ---- through the record ------------------------------------------------------------------------------
def test_gather_reports_findings_per_task_and_a_holdout_finding_downgrades_evidence(tmp_path):
    store = Store(tmp_path / "r.db")
    prompts = [PROMPT.replace("rolling_checksum", f"rolling_checksum_{i}") for i in range(4)]
    prompts = [PROMPT] + [f'def task_{i}(rows):\n    """{topic} for every row of the report, in input order."""\n'
                          for i, topic in enumerate(("Normalise the currency codes", "Merge the duplicate invoices",
                                                     "Flag the late shipments"), 1)]
    references = [REFERENCE] + [p + f"    return [r for r in rows if r.get('kind') == {i}]\n"
                                for i, p in enumerate(prompts[1:], 1)]
    programs = [references[0]] + [p + "    return []\n" for p in prompts[1:]]
    record_run(store, "r-c", tasks=4, passed=2, prompts=prompts, references=references, programs=programs)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("lorem ipsum\n" + prompts[2] + "\n")
    f = gather_facts(store, "r-c", secure(), corpus=corpus)
    by_task = {(x.task_id, x.kind): x for x in f.contamination.findings}
    assert set(by_task) == {("P/0", "candidate_reproduces_reference"), ("P/2", "task_in_corpus")}
    assert by_task[("P/2", "task_in_corpus")].exposure == "holdout"
    assert f.contamination.corpus_checked and "corpus.txt" in f.contamination.corpus
    c = next(c for c in verdict(f, secure()).conditions if c.name == "holdout_cleanliness")
    assert c.level == "weak" and "P/0, P/2" in c.sentence


def test_gather_without_a_corpus_checks_references_only(tmp_path):
    store = Store(tmp_path / "r.db")
    record_run(store, "r-n", tasks=3, passed=3)
    f = gather_facts(store, "r-n", secure())
    assert not f.contamination.corpus_checked and f.contamination.references_checked
    assert f.contamination.findings == ()
    c = next(c for c in verdict(f, secure()).conditions if c.name == "holdout_cleanliness")
    assert c.level == "adequate" and "not compared with a training or prompt corpus" in c.sentence


def test_a_corpus_named_in_the_manifest_is_read_relative_to_it(tmp_path):
    store = Store(tmp_path / "r.db")
    record_run(store, "r-m", tasks=2, passed=2, extra="  contamination_corpus: corpus-dir")
    missing = store.manifest(store.run("r-m")["manifest_id"])["source_path"]
    assert missing.endswith("manifest.yaml")
    with pytest.raises(ConfigError, match=r"contamination corpus /tmp/gate-test/corpus-dir does not exist"):
        gather_facts(store, "r-m", secure())


def test_a_local_edit_is_judged_on_its_middle_never_on_the_code_around_the_gap():
    before = "def total(rows):\n    \"\"\"Sum of the amounts.\"\"\"\n"
    middle = "    amounts = [row.amount for row in rows if row.amount is not None and row.amount > 0]\n"
    after = "    return sum(amounts) if amounts else 0.0  # an empty list sums to zero anyway, but be explicit\n"
    grams = cm.reference_grams(before, before + middle + after, 13, after)
    assert grams and not grams & cm.ngrams(cm.tokens(after), 13)
    copied = cm.reference_overlap("", "", before + "    amounts = []\n" + after, 13, ref=grams)
    assert copied.matched == 0                          # the code around the gap is no reproduction
    assert cm.reference_overlap("", "", before + middle + after, 13, ref=grams).fraction == 1.0
