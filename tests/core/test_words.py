"""Recorded text reads as words on every screen and command (issue 24, item 8): no Python lists, tuples
or flags from records written before the checks said them in words, digests short."""

from passgate.core.words import class_words, plain


def test_boundary_checks_recorded_as_python_values_read_as_words():
    assert plain("drop ['ALL'] add ['SETUID', 'SETGID', 'KILL']") == "drop ALL add SETUID, SETGID, KILL"
    assert plain("interfaces ['lo']") == "interfaces lo"
    assert plain("runtime 'runsc' (manifest: 'runsc')") == "runtime runsc (manifest: runsc)"
    assert plain("ReadonlyRootfs=True") == "ReadonlyRootfs yes"
    assert plain("resolvers []; reachable: none") == "resolvers none; reachable: none"


def test_a_docker_error_reads_as_a_sentence_not_a_tuple():
    text = ("Error while fetching server API version: ('Connection aborted.', "
            "ConnectionRefusedError(111, 'Connection refused'))")
    assert plain(text) == "Error while fetching server API version: Connection aborted: connection refused (errno 111)"


def test_digests_read_short():
    digest = "sha256:" + "ab" * 32
    assert plain(f"image {digest}") == "image sha256:abababababab"
    assert plain("worker " + "cd" * 32) == "worker cdcdcdcdcdcd"


def test_internal_class_names_read_as_words():
    assert class_words("infra_error") == "evaluator error" and class_words("wrong_answer") == "wrong_answer"
