// The choice window: the phone (our host) or Firefox's own implementation, for one request.
"use strict";
const params = new URLSearchParams(location.search);
const token = params.get("token");
document.getElementById("heading").textContent =
  params.get("kind") === "create" ? "Create a passkey" : "Sign in with a passkey";
document.getElementById("site").textContent = "For " + params.get("rpId") + " (" + params.get("origin") + ")";
function answer(choice) {
  const remember = document.getElementById("remember").checked;
  browser.runtime.sendMessage({ type: "choice", token, choice, remember });
}
for (const choice of ["phone", "browser", "cancel"]) {
  document.getElementById(choice).addEventListener("click", () => answer(choice));
}
