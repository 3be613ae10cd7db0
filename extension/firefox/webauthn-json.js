// Conversion between what a page passes to navigator.credentials and WebAuthn's JSON forms
// (WebAuthn L3 §5.1.8-§5.1.10: PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON,
// ...), which the native host speaks. No browser API here: the content script and node's test
// runner (extension/firefox/tests) load the same file.
"use strict";
(function (root) {
  const NAMES = ["NotAllowedError", "SecurityError", "InvalidStateError", "AbortError", "NotSupportedError"];
  // What WebAuthn says for every NotAllowedError, whatever the cause (§14.5.2: the page learns
  // nothing about why).
  const NOT_ALLOWED_MESSAGE = "The operation either timed out or was not allowed.";

  function tag(value) {
    return Object.prototype.toString.call(value);
  }

  // The bytes of a BufferSource (ArrayBuffer or a view), or null. Works across compartments
  // (a page's ArrayBuffer is not an instance of the content script's).
  function bytesOf(value) {
    if (value === null || typeof value !== "object") return null;
    let view;
    if (ArrayBuffer.isView(value)) view = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    else if (tag(value) === "[object ArrayBuffer]") view = new Uint8Array(value);
    else return null;
    // A copy made here: slice() on a view of another compartment's buffer would read its
    // constructor, which Firefox's wrappers refuse.
    const copy = new Uint8Array(view.length);
    copy.set(view);
    return copy;
  }

  function base64url(bytes) {
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  function unbase64url(text) {
    if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text)) throw new TypeError("not base64url");
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  }

  // A dictionary of the page's as JSON: every BufferSource base64url, undefined and functions
  // dropped, depth bounded (options are shallow; a deep or cyclic object is the page's error).
  function toJSONValue(value, depth) {
    if (depth > 16) throw new TypeError("options nested too deeply");
    if (value === null || typeof value === "boolean" || typeof value === "string") return value;
    if (typeof value === "number") {
      if (!Number.isFinite(value)) throw new TypeError("options hold a number that is not finite");
      return value;
    }
    if (typeof value !== "object") return undefined;
    const bytes = bytesOf(value);
    if (bytes) return base64url(bytes);
    if (Array.isArray(value)) {
      const out = [];
      for (let i = 0; i < value.length; i++) {
        const converted = toJSONValue(value[i], depth + 1);
        out.push(converted === undefined ? null : converted);
      }
      return out;
    }
    const out = {};
    for (const key of Object.keys(value)) {
      const converted = toJSONValue(value[key], depth + 1);
      if (converted !== undefined) out[key] = converted;
    }
    return out;
  }

  // The `publicKey` member of create()/get() options as the host's JSON.
  function optionsToJSON(publicKey) {
    if (publicKey === null || typeof publicKey !== "object") throw new TypeError("publicKey must be an object");
    // The members WebAuthn types as BufferSource: a string there would read as base64url.
    const buffers = [["challenge", publicKey.challenge]];
    if (publicKey.user && typeof publicKey.user === "object") buffers.push(["user.id", publicKey.user.id]);
    for (const list of ["excludeCredentials", "allowCredentials"]) {
      // An index loop, not forEach: the page's forEach may not call the content script's function.
      const descriptors = publicKey[list];
      if (!Array.isArray(descriptors)) continue;
      for (let i = 0; i < descriptors.length; i++) {
        buffers.push([list + "[" + i + "].id", descriptors[i] && descriptors[i].id]);
      }
    }
    for (const [name, value] of buffers) {
      if (!bytesOf(value)) throw new TypeError("publicKey." + name + " must be a BufferSource");
    }
    return toJSONValue(publicKey, 0);
  }

  // The `digital` member of get() options ({requests: [{protocol, data}]}) as the host's JSON.
  function optionsToDigitalJSON(digital) {
    if (digital === null || typeof digital !== "object") throw new TypeError("digital must be an object");
    const json = toJSONValue(digital, 0);
    if (!Array.isArray(json.requests) || json.requests.length === 0) throw new TypeError("digital.requests must be a non-empty array");
    return json;
  }

  function bytesOrNull(text) {
    return typeof text === "string" ? unbase64url(text) : null;
  }

  // The host's RegistrationResponseJSON / AuthenticationResponseJSON as plain fields with bytes
  // (Uint8Array), from which the content script builds the page's PublicKeyCredential.
  function credentialFromJSON(json) {
    if (!json || typeof json !== "object" || typeof json.id !== "string" || !json.response) {
      throw new TypeError("the host's credential is not a PublicKeyCredential JSON");
    }
    const r = json.response;
    const registration = typeof r.attestationObject === "string";
    const response = registration
      ? {
          kind: "attestation",
          clientDataJSON: unbase64url(r.clientDataJSON),
          attestationObject: unbase64url(r.attestationObject),
          authenticatorData: bytesOrNull(r.authenticatorData),
          publicKey: bytesOrNull(r.publicKey),
          publicKeyAlgorithm: typeof r.publicKeyAlgorithm === "number" ? r.publicKeyAlgorithm : null,
          transports: Array.isArray(r.transports) && r.transports.length ? r.transports.slice() : ["hybrid"],
        }
      : {
          kind: "assertion",
          clientDataJSON: unbase64url(r.clientDataJSON),
          authenticatorData: unbase64url(r.authenticatorData),
          signature: unbase64url(r.signature),
          userHandle: bytesOrNull(r.userHandle),
        };
    return {
      id: json.id,
      rawId: unbase64url(json.rawId || json.id),
      type: "public-key",
      authenticatorAttachment: "cross-platform",
      response,
      clientExtensionResults: extensionResultsFromJSON(json.clientExtensionResults || {}),
      json: Object.assign({}, json, { authenticatorAttachment: "cross-platform" }),
    };
  }

  // getClientExtensionResults(): prf's results and largeBlob's blob are ArrayBuffers (as bytes here).
  function extensionResultsFromJSON(results) {
    const out = {};
    for (const key of Object.keys(results)) out[key] = results[key];
    if (results.prf && typeof results.prf === "object") {
      out.prf = Object.assign({}, results.prf);
      if (results.prf.results) {
        out.prf.results = {};
        for (const name of ["first", "second"]) {
          if (typeof results.prf.results[name] === "string") out.prf.results[name] = unbase64url(results.prf.results[name]);
        }
      }
    }
    if (results.largeBlob && typeof results.largeBlob === "object") {
      out.largeBlob = Object.assign({}, results.largeBlob);
      if (typeof results.largeBlob.blob === "string") out.largeBlob.blob = unbase64url(results.largeBlob.blob);
    }
    return out;
  }

  // The DOMException (name, message) for the host's or the extension's error answer.
  function pageError(name, message) {
    if (name === "TypeError") return { name: "TypeError", message: String(message || "invalid options") };
    if (!NAMES.includes(name) || name === "NotAllowedError") return { name: "NotAllowedError", message: NOT_ALLOWED_MESSAGE };
    return { name, message: String(message || name) };
  }

  // The origin Firefox reported for a message's sender: scheme://host[:port] of the frame's URL,
  // or null for anything but https and http (the host checks the rest).
  function senderOrigin(url) {
    let parsed;
    try { parsed = new URL(url); } catch (e) { return null; }
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return null;
    return parsed.origin;
  }

  const api = { bytesOf, base64url, unbase64url, optionsToJSON, optionsToDigitalJSON, credentialFromJSON, pageError, senderOrigin, NOT_ALLOWED_MESSAGE };
  if (typeof module === "object" && module.exports) module.exports = api;
  else root.HybridWebAuthn = api;
})(this);
