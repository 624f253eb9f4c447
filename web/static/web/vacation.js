/* Facedown web client: the vacation panel of the player's own profile, a plain client of
   GET/POST/PATCH/DELETE /api/v1/accounts/me/vacation (the bank, going away, coming back,
   automatic vacations and the time zone of the weekend pause). */
"use strict";

(() => {
  const { _, api, el, problemText } = Facedown;
  const $ = (id) => document.getElementById(id);
  const panel = $("vacation");
  if (!panel) return;
  const TEXT = {
    away: (until, days) => _("On vacation until %(until)s. %(days)s days left in your bank.", { until, days }),
    home: (days) => _("Your vacation bank holds %(days)s days.", { days }),
  };
  let saved = null; // the time zone the account has
  const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

  function zones() {
    const listed = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
    return listed.includes("UTC") ? listed : ["UTC", ...listed];
  }

  function failed(answer) {
    $("vacation-error").textContent = problemText(answer);
    $("vacation-error").hidden = false;
  }

  function show(state) {
    $("vacation-error").hidden = true;
    const days = state.bank_days.toLocaleString(document.documentElement.lang || undefined,
      { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    $("vacation-state").replaceChildren(state.on_vacation
      ? TEXT.away(Facedown.localTime(state.until), days) : TEXT.home(days));
    $("vacation-go").hidden = state.on_vacation;
    $("vacation-end").hidden = !state.on_vacation;
    $("vacation-auto").checked = state.auto_vacation;
    const select = $("vacation-zone");
    const names = zones();
    if (!names.includes(state.time_zone)) names.unshift(state.time_zone);
    if (!select.options.length) select.replaceChildren(...names.map((z) => el("option", { value: z }, z)));
    select.value = state.time_zone;
    saved = state.time_zone;
    $("vacation-zone-save").hidden = true;
    panel.hidden = false;
  }

  async function send(method, body) {
    const answer = await api(method, "/accounts/me/vacation", body);
    if (answer.ok) show(answer.data); else failed(answer);
    return answer;
  }

  async function load() {
    const answer = await api("GET", "/accounts/me/vacation");
    if (!answer.ok) { failed(answer); panel.hidden = false; return; }
    show(answer.data);
    // An account that never chose a zone is on UTC: offer the browser's (saved when asked).
    if (saved === "UTC" && browserZone() !== "UTC") {
      $("vacation-zone").value = browserZone();
      $("vacation-zone-save").hidden = $("vacation-zone").value === saved;
    }
  }

  $("vacation-go").addEventListener("submit", (event) => {
    event.preventDefault();
    const day = $("vacation-until").value; // the end of that day, here
    if (!day) return;
    const until = new Date(`${day}T23:59:00`);
    send("POST", { until: until.toISOString() });
  });
  Facedown.echoDate($("vacation-until"));
  $("vacation-end").addEventListener("click", () => send("DELETE"));
  $("vacation-auto").addEventListener("change", () => send("PATCH", { auto_vacation: $("vacation-auto").checked }));
  $("vacation-zone").addEventListener("change", () => {
    $("vacation-zone-save").hidden = $("vacation-zone").value === saved;
  });
  $("vacation-zone-save").addEventListener("click", () => send("PATCH", { time_zone: $("vacation-zone").value }));
  load();
})();
