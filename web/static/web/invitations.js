/* Facedown web client: whose challenges and invitations reach the player, on their own
   profile; a plain client of GET and PATCH /api/v1/accounts/me (invitations_from,
   invitations_from_bots). A change is saved at once. */
"use strict";

(() => {
  const { api, problemText } = Facedown;
  const $ = (id) => document.getElementById(id);
  const panel = $("invitations");
  if (!panel) return;

  function show(me) {
    $("invitations-error").hidden = true;
    $("invitations-from").value = me.invitations_from;
    $("invitations-bots").checked = me.invitations_from_bots;
    panel.hidden = false;
  }

  async function save(body) {
    const answer = await api("PATCH", "/accounts/me", body);
    if (answer.ok) {
      show(answer.data);
    } else {
      $("invitations-error").textContent = problemText(answer);
      $("invitations-error").hidden = false;
    }
  }

  async function load() {
    const answer = await api("GET", "/accounts/me");
    if (answer.ok) show(answer.data);
  }

  $("invitations-from").addEventListener("change", (event) => save({ invitations_from: event.target.value }));
  $("invitations-bots").addEventListener("change", (event) => save({ invitations_from_bots: event.target.checked }));
  load();
})();
