/* Facedown web client: the screen-reader mode's switch, in the top bar (#reader-toggle) and on
   the player's own profile (#reader-pref). The choice is the account's (PATCH
   /api/v1/accounts/me, screen_reader), so it follows the player to every device; the page
   carries it as <body data-reader="on"> and match pages follow "facedown:reader" at once.
   Self-contained: it needs none of api.js. */
"use strict";

(() => {
  const toggle = document.getElementById("reader-toggle");
  const box = document.getElementById("reader-pref");
  if (!toggle && !box) return;

  function cookie(name) {
    for (const part of document.cookie.split(";")) {
      const [key, ...rest] = part.trim().split("=");
      if (key === name) return decodeURIComponent(rest.join("="));
    }
    return "";
  }

  function show(on) {
    if (on) document.body.dataset.reader = "on";
    else delete document.body.dataset.reader;
    if (toggle) toggle.setAttribute("aria-pressed", on ? "true" : "false");
    if (box) box.checked = on;
  }

  async function save(on) {
    const response = await fetch("/api/v1/accounts/me", {
      method: "PATCH",
      credentials: "same-origin",
      headers: { Accept: "application/json", "Content-Type": "application/json", "X-CSRFToken": cookie("csrftoken") },
      body: JSON.stringify({ screen_reader: on }),
    });
    const me = response.ok ? await response.json() : null;
    show(me ? me.screen_reader : document.body.dataset.reader === "on");
    document.dispatchEvent(new CustomEvent("facedown:reader", { detail: { switched: Boolean(me) } }));
  }

  show(document.body.dataset.reader === "on");
  if (toggle) toggle.addEventListener("click", () => save(document.body.dataset.reader !== "on"));
  if (box) box.addEventListener("change", () => save(box.checked));
})();
