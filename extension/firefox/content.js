// Runs in every https (and http loopback) document and same-origin frame, in the content
// script's isolated world. It replaces navigator.credentials.create/get in the page's world
// with exported functions (Firefox's exportFunction/cloneInto, no script element and no message
// the page could see or forge) and extends PublicKeyCredential.getClientCapabilities(). Requests
// go to the background over a port of the extension's own; nothing of the ceremony (the QR code
// above all) ever enters the page.
"use strict";
(function () {
  const W = HybridWebAuthn;
  const page = window.wrappedJSObject;
  let container;
  try { container = page.navigator.credentials; } catch (e) { return; }
  if (!container) return;
  // Frames of another origin than the top keep Firefox's own behaviour.
  let sameOriginAsTop = false;
  try { sameOriginAsTop = window === window.top || window.top.location.origin === window.location.origin; } catch (e) {}
  if (!sameOriginAsTop) return;

  const originalCreate = container.create;
  const originalGet = container.get;

  function pageError(name, message) {
    const error = W.pageError(name, message);
    return error.name === "TypeError" ? new page.TypeError(error.message) : new page.DOMException(error.message, error.name);
  }

  function pageBuffer(bytes) {
    return cloneInto(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), page);
  }

  function pageExtensionResults(results) {
    return cloneInto(results, page, { cloneFunctions: false });
  }

  // The page's PublicKeyCredential for the host's JSON.
  function pageCredential(json) {
    const c = W.credentialFromJSON(json);
    const r = c.response;
    const response = { clientDataJSON: pageBuffer(r.clientDataJSON) };
    if (r.kind === "attestation") {
      response.attestationObject = pageBuffer(r.attestationObject);
      response.getTransports = () => cloneInto(r.transports, page);
      response.getAuthenticatorData = () => (r.authenticatorData ? pageBuffer(r.authenticatorData) : null);
      response.getPublicKey = () => (r.publicKey ? pageBuffer(r.publicKey) : null);
      response.getPublicKeyAlgorithm = () => r.publicKeyAlgorithm;
    } else {
      response.authenticatorData = pageBuffer(r.authenticatorData);
      response.signature = pageBuffer(r.signature);
      response.userHandle = r.userHandle ? pageBuffer(r.userHandle) : null;
    }
    const credential = cloneInto({
      id: c.id,
      rawId: pageBuffer(c.rawId),
      type: c.type,
      authenticatorAttachment: c.authenticatorAttachment,
      response,
      getClientExtensionResults: () => pageExtensionResults(c.clientExtensionResults),
      toJSON: () => cloneInto(c.json, page),
    }, page, { cloneFunctions: true });
    // instanceof PublicKeyCredential (and the response's interface): the prototypes of the
    // page's own interfaces, under our own data properties.
    try {
      const raw = XPCNativeWrapper.unwrap(credential);
      Object.setPrototypeOf(raw, page.PublicKeyCredential.prototype);
      const responseInterface = r.kind === "attestation" ? page.AuthenticatorAttestationResponse : page.AuthenticatorAssertionResponse;
      if (responseInterface) Object.setPrototypeOf(raw.response, responseInterface.prototype);
    } catch (e) {}
    return credential;
  }

  // The page's DigitalCredential-like object: {protocol, data}.
  function pageDigitalCredential(json) {
    return cloneInto({ type: "digital", protocol: json.protocol, data: json.data, toJSON: () => cloneInto(json, page) },
      page, { cloneFunctions: true });
  }

  // Our ceremony: the background decides the route (phone, or Firefox's own), then answers.
  function run(kind, options, xrayOptions, original) {
    return new Promise((resolve, reject) => {
      const signal = xrayOptions.signal;
      if (signal && signal.aborted) { reject(XPCNativeWrapper.unwrap(signal).reason); return; }
      let json;
      try {
        json = kind === "digital" ? W.optionsToDigitalJSON(options.digital) : W.optionsToJSON(options.publicKey);
      } catch (e) { reject(pageError("TypeError", e.message)); return; }
      const port = browser.runtime.connect({ name: "ceremony" });
      let settled = false;
      const settle = (outcome) => {
        if (settled) return;
        settled = true;
        if (signal) signal.removeEventListener("abort", onAbort);
        port.disconnect();
        outcome();
      };
      const onAbort = () => settle(() => { reject(XPCNativeWrapper.unwrap(signal).reason); });
      if (signal) signal.addEventListener("abort", onAbort);
      port.onMessage.addListener((message) => {
        if (message.type === "route" && message.route === "browser") {
          settle(() => resolve(original.call(container, options)));
        } else if (message.type === "result") {
          settle(() => {
            try { resolve(kind === "digital" ? pageDigitalCredential(message.credential) : pageCredential(message.credential)); }
            catch (e) { reject(pageError("NotAllowedError")); }
          });
        } else if (message.type === "error") {
          settle(() => reject(pageError(message.name, message.message)));
        }
      });
      port.onDisconnect.addListener(() => settle(() => reject(pageError("NotAllowedError"))));
      port.postMessage({ type: kind, options: json });
    });
  }

  function replacement(kind, original) {
    return function (xrayOptions) {
      const options = xrayOptions ? XPCNativeWrapper.unwrap(xrayOptions) : xrayOptions;
      let ours = false;
      try {
        ours = !!options && options.mediation !== "conditional" &&
          (kind === "create" ? !!options.publicKey : !!options.publicKey !== !!options.digital);
      } catch (e) {}
      if (!ours) return original.call(container, options);
      const which = options.publicKey ? kind : "digital";
      return new page.Promise(exportFunction((resolve, reject) => {
        run(which, options, xrayOptions, original).then(resolve, reject);
      }, page));
    };
  }

  exportFunction(replacement("create", originalCreate), container, { defineAs: "create" });
  exportFunction(replacement("get", originalGet), container, { defineAs: "get" });

  // getClientCapabilities(): Firefox's own answer (when it has the method), plus hybridTransport
  // when the host is there.
  const PKC = page.PublicKeyCredential;
  if (PKC) {
    const originalCapabilities = typeof PKC.getClientCapabilities === "function" ? PKC.getClientCapabilities : null;
    exportFunction(function () {
      return new page.Promise(exportFunction((resolve, reject) => {
        const own = originalCapabilities ? Promise.resolve(originalCapabilities.call(PKC)) : Promise.resolve({});
        Promise.all([own, browser.runtime.sendMessage({ type: "capabilities" }).catch(() => ({ available: false }))])
          .then(([capabilities, ours]) => {
            const out = {};
            const raw = XPCNativeWrapper.unwrap(capabilities);
            for (const key of Object.keys(raw)) out[key] = raw[key];
            if (ours && ours.available) out.hybridTransport = true;
            resolve(cloneInto(out, page));
          }, reject);
      }, page));
    }, PKC, { defineAs: "getClientCapabilities" });
  }
})();
