// The extension's background: the only part that talks to the native host. Each content script
// opens a port per request; the origin sent to the host is the port's sender URL as Firefox
// reports it (never what the page says). docs/firefox.md describes the messages.
"use strict";
const HOST_NAME = "hybrid_transport";
const W = globalThis.HybridWebAuthn;

let native = null;           // the port to the host, while requests run
let hostReady = null;        // a promise of true once the host answered hello, false if it cannot start
const pending = new Map();   // request id -> the content script's port
const choices = new Map();   // choice window token -> resolve({choice, remember})

function connectHost() {
  if (native) return hostReady;
  const port = browser.runtime.connectNative(HOST_NAME);
  native = port;
  hostReady = new Promise((resolve) => {
    port.onMessage.addListener((message) => {
      if (message && message.type === "hello") { resolve(true); return; }
      onHostMessage(message);
    });
    port.onDisconnect.addListener(() => {
      resolve(false);
      if (native === port) { native = null; hostReady = null; }
      for (const [id, page] of pending) {
        page.postMessage({ type: "error", name: "NotAllowedError", message: "the host ended" });
        pending.delete(id);
      }
    });
  });
  port.postMessage({ type: "hello" });
  return hostReady;
}

// Closes the host's port when no request runs (the host then exits).
function releaseHost() {
  if (pending.size === 0 && native) {
    const port = native;
    native = null;
    hostReady = null;
    port.disconnect();
  }
}

async function hostAvailable() {
  const ready = await connectHost();
  if (ready) releaseHost();
  return ready;
}

function onHostMessage(message) {
  if (!message || typeof message.id !== "string") return;
  const page = pending.get(message.id);
  if (!page) return;
  if (message.type === "progress") { page.postMessage({ type: "progress", stage: message.stage }); return; }
  if (message.type === "result" || message.type === "error") {
    pending.delete(message.id);
    page.postMessage(message);
    releaseHost();
  }
}

function randomID() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return W.base64url(bytes);
}

// "Use a phone or tablet" or "a security key or this browser": remembered per origin if asked.
async function choose(origin, rpId, kind, pageWindowId) {
  const key = "choice:" + origin;
  const stored = (await browser.storage.local.get(key))[key];
  if (stored === "phone" || stored === "browser") return stored;
  const token = randomID();
  const url = browser.runtime.getURL("choice.html") + "?" + new URLSearchParams({ token, origin, rpId: rpId || "", kind });
  const answer = new Promise((resolve) => choices.set(token, resolve));
  const created = await browser.windows.create({ url, type: "popup", width: 460, height: 300 });
  const closed = (windowId) => { if (windowId === created.id) choices.get(token)?.({ choice: "cancel" }); };
  browser.windows.onRemoved.addListener(closed);
  const result = await answer;
  browser.windows.onRemoved.removeListener(closed);
  choices.delete(token);
  await browser.windows.remove(created.id).catch(() => {});
  // Back to the page's window: Firefox's own implementation refuses a page that is not focused.
  if (pageWindowId !== undefined) await browser.windows.update(pageWindowId, { focused: true }).catch(() => {});
  if (result.remember && (result.choice === "phone" || result.choice === "browser")) {
    await browser.storage.local.set({ [key]: result.choice });
  }
  return result.choice;
}

browser.runtime.onMessage.addListener((message, sender) => {
  if (!message) return undefined;
  if (message.type === "capabilities") return hostAvailable().then((available) => ({ available }));
  if (message.type === "choice" && sender.url && sender.url.startsWith(browser.runtime.getURL("choice.html"))) {
    choices.get(message.token)?.({ choice: message.choice, remember: !!message.remember });
  }
  return undefined;
});

browser.runtime.onConnect.addListener((page) => {
  if (page.name !== "ceremony" || !page.sender || page.sender.id !== browser.runtime.id) return;
  let id = null;
  let ended = false;
  page.onDisconnect.addListener(() => {
    ended = true;
    if (id && pending.has(id)) {
      pending.delete(id);
      if (native) native.postMessage({ type: "abort", id });
      releaseHost();
    }
  });
  page.onMessage.addListener(async (message) => {
    if (!message || id || !["create", "get", "digital"].includes(message.type)) {
      if (message && message.type === "abort" && id && pending.has(id)) native?.postMessage({ type: "abort", id });
      return;
    }
    id = randomID();
    const origin = W.senderOrigin(page.sender.url);
    if (!origin) { page.postMessage({ type: "route", route: "browser" }); return; }
    if (!(await connectHost())) { page.postMessage({ type: "route", route: "browser" }); return; }
    if (ended) { releaseHost(); return; }
    if (message.type !== "digital") {
      const rpId = message.type === "create" ? message.options?.rp?.id : message.options?.rpId;
      let choice;
      try { choice = await choose(origin, rpId || new URL(origin).hostname, message.type, page.sender.tab?.windowId); } catch (e) { choice = "cancel"; }
      if (choice !== "phone") {
        releaseHost();
        page.postMessage(choice === "browser" ? { type: "route", route: "browser" } : { type: "error", name: "NotAllowedError" });
        return;
      }
      if (ended) { releaseHost(); return; }
      if (!(await connectHost())) { page.postMessage({ type: "route", route: "browser" }); return; }
    }
    pending.set(id, page);
    page.postMessage({ type: "route", route: "phone" });
    const request = { type: message.type, id, origin };
    if (message.type === "digital") request.request = message.options; else request.options = message.options;
    native.postMessage(request);
  });
});
