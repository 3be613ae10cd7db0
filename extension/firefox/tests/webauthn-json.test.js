// node --test extension/firefox/tests: the extension's conversion code, checked against node's
// own base64url (Buffer) and RFC 4648's vectors, not against itself.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const W = require("../webauthn-json.js");

const b64u = (bytes) => Buffer.from(bytes).toString("base64url");

test("base64url round-trips RFC 4648 section 10's vectors without padding", () => {
  const vectors = { "": "", f: "Zg", fo: "Zm8", foo: "Zm9v", foob: "Zm9vYg", fooba: "Zm9vYmE", foobar: "Zm9vYmFy" };
  for (const [text, encoded] of Object.entries(vectors)) {
    assert.equal(W.base64url(new TextEncoder().encode(text)), encoded);
    assert.equal(new TextDecoder().decode(W.unbase64url(encoded)), text);
  }
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  assert.equal(W.base64url(all), b64u(all));
  assert.deepEqual(W.unbase64url(b64u(all)), all);
  assert.throws(() => W.unbase64url("ab+c"), TypeError);
  assert.throws(() => W.unbase64url(7), TypeError);
});

test("creation options: every BufferSource base64url, undefined dropped, numbers and strings kept", () => {
  const challenge = new Uint8Array([1, 2, 3, 250, 251, 252]);
  const userID = new Uint8Array(16).fill(7).buffer;
  const salt = new Uint8Array(32).fill(9);
  const view = new DataView(new Uint8Array([0, 5, 6, 7, 0]).buffer, 1, 3);
  const json = W.optionsToJSON({
    rp: { id: "localhost", name: "Test" },
    user: { id: userID, name: "alice", displayName: "Alice" },
    challenge,
    pubKeyCredParams: [{ type: "public-key", alg: -7 }, { type: "public-key", alg: -257 }],
    timeout: 60000,
    excludeCredentials: [{ type: "public-key", id: view }],
    authenticatorSelection: { residentKey: "required", userVerification: undefined },
    extensions: { credProps: true, prf: { eval: { first: salt } } },
  });
  assert.deepEqual(json, {
    rp: { id: "localhost", name: "Test" },
    user: { id: b64u(new Uint8Array(16).fill(7)), name: "alice", displayName: "Alice" },
    challenge: b64u(challenge),
    pubKeyCredParams: [{ type: "public-key", alg: -7 }, { type: "public-key", alg: -257 }],
    timeout: 60000,
    excludeCredentials: [{ type: "public-key", id: b64u([5, 6, 7]) }],
    authenticatorSelection: { residentKey: "required" },
    extensions: { credProps: true, prf: { eval: { first: b64u(salt) } } },
  });
});

test("options without a BufferSource challenge, or not an object, are a TypeError", () => {
  assert.throws(() => W.optionsToJSON({ challenge: "abc" }), TypeError);
  assert.throws(() => W.optionsToJSON(null), TypeError);
  assert.throws(() => W.optionsToJSON({ challenge: new Uint8Array(1), timeout: Infinity }), TypeError);
  const deep = {};
  let node = deep;
  for (let i = 0; i < 40; i++) node = node.next = {};
  assert.throws(() => W.optionsToJSON({ challenge: new Uint8Array(1), deep }), TypeError);
  assert.throws(() => W.optionsToDigitalJSON({ requests: [] }), TypeError);
  assert.deepEqual(W.optionsToDigitalJSON({ requests: [{ protocol: "openid4vp-v1-unsigned", data: { nonce: "n" } }] }),
    { requests: [{ protocol: "openid4vp-v1-unsigned", data: { nonce: "n" } }] });
});

test("a RegistrationResponseJSON becomes bytes, cross-platform, hybrid transports", () => {
  const bytes = (n, v) => new Uint8Array(n).fill(v);
  const c = W.credentialFromJSON({
    id: b64u(bytes(16, 1)), rawId: b64u(bytes(16, 1)), type: "public-key",
    response: {
      clientDataJSON: b64u(bytes(10, 2)), attestationObject: b64u(bytes(20, 3)),
      authenticatorData: b64u(bytes(37, 4)), publicKey: b64u(bytes(91, 5)), publicKeyAlgorithm: -7,
      transports: ["hybrid", "internal"],
    },
    clientExtensionResults: { credProps: { rk: true }, prf: { enabled: true, results: { first: b64u(bytes(32, 6)) } } },
  });
  assert.equal(c.authenticatorAttachment, "cross-platform");
  assert.deepEqual(c.rawId, bytes(16, 1));
  assert.equal(c.response.kind, "attestation");
  assert.deepEqual(c.response.attestationObject, bytes(20, 3));
  assert.deepEqual(c.response.publicKey, bytes(91, 5));
  assert.equal(c.response.publicKeyAlgorithm, -7);
  assert.deepEqual(c.response.transports, ["hybrid", "internal"]);
  assert.deepEqual(c.clientExtensionResults.credProps, { rk: true });
  assert.deepEqual(c.clientExtensionResults.prf.results.first, bytes(32, 6));
  assert.equal(c.json.authenticatorAttachment, "cross-platform");
  const bare = W.credentialFromJSON({ id: "AQ", rawId: "AQ", response: { clientDataJSON: "", attestationObject: "" } });
  assert.deepEqual(bare.response.transports, ["hybrid"]);
});

test("an AuthenticationResponseJSON keeps a null userHandle null", () => {
  const c = W.credentialFromJSON({
    id: "AQID", rawId: "AQID", type: "public-key",
    response: { clientDataJSON: "AA", authenticatorData: "AQ", signature: "Ag" },
  });
  assert.equal(c.response.kind, "assertion");
  assert.deepEqual(c.response.signature, new Uint8Array([2]));
  assert.equal(c.response.userHandle, null);
  assert.throws(() => W.credentialFromJSON({ response: {} }), TypeError);
});

test("errors: WebAuthn's names pass, NotAllowedError and unknown names say nothing of why", () => {
  assert.deepEqual(W.pageError("SecurityError", "RP ID"), { name: "SecurityError", message: "RP ID" });
  assert.deepEqual(W.pageError("InvalidStateError", "x").name, "InvalidStateError");
  assert.deepEqual(W.pageError("NotAllowedError", "the phone has no passkey for this site"),
    { name: "NotAllowedError", message: W.NOT_ALLOWED_MESSAGE });
  assert.equal(W.pageError("HostProtocolError", "x").name, "NotAllowedError");
  assert.equal(W.pageError("TypeError", "bad").name, "TypeError");
});

test("the sender's origin: scheme, host and port of the frame's URL; nothing else", () => {
  assert.equal(W.senderOrigin("http://localhost:8123/page.html?x#y"), "http://localhost:8123");
  assert.equal(W.senderOrigin("https://Example.COM/a"), "https://example.com");
  assert.equal(W.senderOrigin("https://example.com:443/"), "https://example.com");
  assert.equal(W.senderOrigin("moz-extension://abc/choice.html"), null);
  assert.equal(W.senderOrigin("about:blank"), null);
  assert.equal(W.senderOrigin("not a url"), null);
});
