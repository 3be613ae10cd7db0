#!/usr/bin/env python3
"""The judge's rules for case 6's cancel and case 7's repeat ("cached"), on synthetic records.
Case 7: with the same clientDataJSON as the program's previous step the key must answer from its
cache (no ceremony);
with another (Chromium's random "other_keys_can_be_added_here" member) it must run one new
ceremony. py_webauthn's verification is replaced: these records carry no signatures.

Run: python3 ci/browser-seckey/judge_test.py (ci/run-browser-seckey-proof.sh runs it first).
"""
import base64
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402

PLAIN = {"type": "webauthn.get", "challenge": "AAAA", "origin": "http://localhost:8000", "crossOrigin": False}
EXTRA = dict(PLAIN, other_keys_can_be_added_here="do not compare clientDataJSON against a template. See https://goo.gl/yabPex")


def b64u(data):
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).rstrip(b"=").decode()


def record(step, expect, client_data, ceremonies, program="chromium"):
    events = [[0.5, {"event": "qr"}]] * ceremonies
    return {"program": program, "case": "7", "step": step, "kind": "get", "expect": expect, "events": events,
            "result": {"ok": True, "credential": {"response": {"clientDataJSON": b64u(client_data)}}}}


class CachedRepeat(unittest.TestCase):
    def judged(self, repeat_client_data, repeat_ceremonies):
        j = judge.Judge("http://localhost:8000")
        j.verify = lambda record: None
        self.assertEqual(j.judge(record("get from program/tab B", "ok", PLAIN, 1))[0], True)
        return j.judge(record("same request again from B (cache)", "cached", repeat_client_data, repeat_ceremonies))

    def test_identical_client_data_must_come_from_the_cache(self):
        self.assertTrue(self.judged(PLAIN, 0)[0])
        self.assertFalse(self.judged(PLAIN, 1)[0])

    def test_other_client_data_must_get_one_new_ceremony(self):
        passed, reason = self.judged(EXTRA, 1)
        self.assertTrue(passed)
        self.assertIn("other_keys_can_be_added_here", reason)
        self.assertFalse(self.judged(EXTRA, 0)[0])  # an answer over another hash reused: never
        self.assertFalse(self.judged(EXTRA, 2)[0])

    def test_programs_are_judged_apart(self):
        j = judge.Judge("http://localhost:8000")
        j.verify = lambda record: None
        j.judge(record("get from program/tab B", "ok", PLAIN, 1, program="firefox"))
        j.judge(record("get from program/tab B", "ok", EXTRA, 1, program="chromium"))
        self.assertTrue(j.judge(record("same request again from B (cache)", "cached", PLAIN, 0, program="firefox"))[0])


class Cancel(unittest.TestCase):
    """Case 6: the key reports the cancel within 1 s; the phone, which would otherwise wait for a
    consent until its own timeout, ends within judge.PHONE_CANCEL_LIMIT (5 s)."""

    def judged(self, bridge, phone):
        aborted = {"program": "chromium", "case": "6", "step": "get cancelled", "kind": "get", "expect": "aborted",
                   "aborted_at": 10.0, "bridge_cancel_after_abort": bridge, "phone_exit_after_abort": phone,
                   "result": {"ok": False, "name": "AbortError"}}
        return judge.Judge("http://localhost:8000").judge(aborted)[0]

    def test_the_phone_may_take_seconds_to_end_but_not_until_its_timeout(self):
        self.assertTrue(self.judged(0.2, 1.10))  # seen on a loaded CI host
        self.assertTrue(self.judged(0.2, 4.9))
        self.assertFalse(self.judged(0.2, 5.5))
        self.assertFalse(self.judged(0.2, None))  # never ended

    def test_the_key_reports_the_cancel_within_a_second(self):
        self.assertFalse(self.judged(1.5, 0.5))
        self.assertFalse(self.judged(None, 0.5))


if __name__ == "__main__":
    unittest.main()
