/* Facedown web client: Web Push. The "Notify me" button asks the browser for permission,
   registers the service worker (/sw.js) and sends its push subscription to
   POST /api/v1/accounts/me/push-subscriptions. Hidden where the browser has no Push API or the
   server sends no Web Push (an empty VAPID key). Self-contained: it needs none of api.js. */
"use strict";

(() => {
  const button = document.getElementById("push-enable");
  if (!button) return;
  const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
  if (!supported) return;
  // The page's catalogue (/jsi18n); English when it did not load.
  const _ = (text) => (typeof gettext === "function" ? gettext(text) : text);

  function cookie(name) {
    for (const part of document.cookie.split(";")) {
      const [key, ...rest] = part.trim().split("=");
      if (key === name) return decodeURIComponent(rest.join("="));
    }
    return "";
  }

  function keyBytes(base64url) {
    const padded = base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4);
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }

  function say(text) {
    const box = document.getElementById("toast");
    if (!box) return;
    box.textContent = text;
    box.classList.add("show");
    setTimeout(() => box.classList.remove("show"), 4000);
  }

  async function publicKey() {
    const answer = await fetch("/api/v1/accounts/push-key", { headers: { Accept: "application/json" } });
    return answer.ok ? (await answer.json()).public_key : "";
  }

  async function enable(key) {
    if ((await Notification.requestPermission()) !== "granted") {
      say(_("Notifications are blocked in this browser."));
      return;
    }
    const registration = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
    await navigator.serviceWorker.ready;
    const subscription =
      (await registration.pushManager.getSubscription()) ||
      (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) }));
    const answer = await fetch("/api/v1/accounts/me/push-subscriptions", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": cookie("csrftoken") },
      body: JSON.stringify(subscription.toJSON()),
    });
    if (answer.ok) {
      button.textContent = _("Notifications on");
      button.disabled = true;
      say(_("This browser will tell you when it is your move."));
    } else {
      say(_("Could not turn notifications on."));
    }
  }

  publicKey().then(async (key) => {
    if (!key) return;
    button.hidden = false;
    if (Notification.permission === "granted") {
      const registration = await navigator.serviceWorker.getRegistration("/");
      if (registration && (await registration.pushManager.getSubscription())) {
        button.textContent = _("Notifications on");
        button.disabled = true;
        return;
      }
    }
    button.addEventListener("click", () => enable(key).catch(() => say(_("Could not turn notifications on."))));
  });
})();
