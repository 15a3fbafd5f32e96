"""Each failure class from a real broken or hostile candidate, through the engine and the real sandbox."""

from tests.core.enginekit import make_manifest, outcomes, run, write_samples

CASES = {
    "wrong_answer": "    return x - y\n",
    "runtime_error": "    return x / 0\n",
    "syntax_error": "    return x +\n",
    "timeout": "    while True:\n        pass\n",
    "memory_exceeded": "    block = bytearray(3 << 30)\n    return x + y\n",
    "output_exceeded": "    while True:\n        print('x' * 65536)\n",
    "premature_exit": "    import os\n    os._exit(0)\n",
    "sandbox_violation": "    import socket\n    socket.create_connection(('192.0.2.1', 80), timeout=1)\n",
    "not_plain_data": "    class Any:\n        def __eq__(self, other):\n            return True\n    return Any()\n",
}


def test_every_failure_class_is_recorded_with_what_happened(tmp_path, image_digest):
    names = list(CASES)
    s = write_samples(tmp_path / "broken.jsonl", [("HumanEval/53", CASES[n]) for n in names])
    m = make_manifest(tmp_path, image_digest, ["HumanEval/53"], s,
                      execution={"timeout": {"calibrate": False, "floor_s": 1.0}, "limits": {"cpu_s": 1.0}})
    store, run_id = run(tmp_path, m)
    out = outcomes(store, run_id)
    got = {name: out[("HumanEval/53", i)]["failure_class"] for i, name in enumerate(names)}
    assert got == {name: name for name in names}
    assert all(out[("HumanEval/53", i)]["outcome"] == "failed" for i in range(len(names)))
    runtime = [e for e in store.rows("executions", run_id) if e["candidate_index"] == names.index("runtime_error")]
    assert runtime[0]["exc_type"] == "ZeroDivisionError"
    violation = [e for e in store.rows("executions", run_id) if e["candidate_index"] == names.index("sandbox_violation")]
    assert "network" in violation[0]["violations_json"]
