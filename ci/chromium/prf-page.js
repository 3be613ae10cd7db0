// Injected into chromium-peer's test page (RP ID "localhost") through DevTools before each
// ceremony: create() and get() with the prf and credProps extensions over hybrid. Each call
// starts one ceremony and leaves its outcome, as JSON, in window.__result.
(function () {
  const encoder = new TextEncoder();
  const random = (n) => crypto.getRandomValues(new Uint8Array(n));
  const hex = (buffer) => buffer ? Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, '0')).join('') : null;
  const fromHex = (text) => new Uint8Array(text.match(/../g).map((h) => parseInt(h, 16)));
  const values = (v) => {
    const out = {first: encoder.encode(v.first)};
    if (v.second !== undefined) out.second = encoder.encode(v.second);
    return out;
  };
  const prfOutput = (prf) => {
    if (!prf) return null;
    const out = {};
    if ('enabled' in prf) out.enabled = prf.enabled;
    if (prf.results) out.results = {first: hex(prf.results.first), second: hex(prf.results.second)};
    return out;
  };
  const settle = (promise) => {
    window.__result = null;
    promise.then((credential) => {
      const ext = credential.getClientExtensionResults();
      window.__result = JSON.stringify({
        ok: true, id: credential.id, rawId: hex(credential.rawId),
        userHandle: credential.response.userHandle ? hex(credential.response.userHandle) : null,
        extensions: Object.keys(ext), prf: prfOutput(ext.prf), credProps: ext.credProps || null,
      });
    }, (error) => {
      window.__result = JSON.stringify({ok: false, error: error.name + ': ' + error.message});
    });
    return 'started';
  };
  // create(): a discoverable passkey; prf {} (or eval at creation) and credProps.
  window.interopCreate = function (name, prfEval) {
    const prf = prfEval ? {eval: values(prfEval)} : {};
    return settle(navigator.credentials.create({publicKey: {
      rp: {id: 'localhost', name: 'prf interop'},
      user: {id: random(16), name: name, displayName: name},
      challenge: random(32),
      pubKeyCredParams: [{type: 'public-key', alg: -7}],
      authenticatorSelection: {residentKey: 'required', userVerification: 'required',
                               authenticatorAttachment: 'cross-platform'},
      hints: ['hybrid'], timeout: 120000,
      extensions: {prf: prf, credProps: true},
    }}));
  };
  // get(): allow = credential IDs in hex (null: discoverable); prf = {eval, byCredential}
  // with text inputs, byCredential keyed by base64url credential ID.
  window.interopGet = function (allow, prf) {
    const publicKey = {rpId: 'localhost', challenge: random(32), userVerification: 'required',
                       hints: ['hybrid'], timeout: 120000, extensions: {}};
    if (allow) publicKey.allowCredentials = allow.map((id) => ({type: 'public-key', id: fromHex(id)}));
    if (prf) {
      const input = {};
      if (prf.eval) input.eval = values(prf.eval);
      if (prf.byCredential) {
        input.evalByCredential = {};
        for (const id in prf.byCredential) input.evalByCredential[id] = values(prf.byCredential[id]);
      }
      publicKey.extensions.prf = input;
    }
    return settle(navigator.credentials.get({publicKey: publicKey}));
  };
  return 'injected';
})();
