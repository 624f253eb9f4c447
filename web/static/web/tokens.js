/* Facedown web client: the API tokens page. Lists, creates and revokes the signed-in user's
   access tokens through /api/v1/accounts/me/tokens; a new secret is shown once. */
"use strict";

(() => {
  const rows = document.getElementById("token-rows");
  const status = document.getElementById("tokens-status");
  const form = document.getElementById("token-form");
  const secretBox = document.getElementById("token-secret");
  const { _ } = Facedown;

  const when = (text) => (text ? Facedown.localTime(text) : _("never"));

  function row(token) {
    const tr = document.createElement("tr");
    const cells = [token.name, token.scopes, when(token.expires_at),
      token.last_used_at ? when(token.last_used_at) : _("not yet")];
    for (const value of cells) {
      const td = document.createElement("td");
      // Scopes are identifiers, the same in every language: shown as code, never broken.
      if (Array.isArray(value)) {
        td.className = "stack-wide";
        value.forEach((scope, i) => {
          const code = document.createElement("code");
          code.className = "identifier";
          code.textContent = scope;
          td.append(...(i ? [", ", code] : [code]));
        });
      } else td.textContent = value;
      tr.append(td);
    }
    const td = document.createElement("td");
    const revoke = document.createElement("button");
    revoke.type = "button";
    revoke.className = "link";
    revoke.textContent = _("Revoke");
    revoke.setAttribute("aria-label", _("Revoke %(name)s", token));
    revoke.addEventListener("click", async () => {
      const answer = await Facedown.api("DELETE", `/accounts/me/tokens/${token.id}`);
      status.textContent = answer.ok ? _("Revoked %(name)s.", token) : Facedown.problemText(answer);
      await load();
    });
    td.append(revoke);
    tr.append(td);
    tr.cells[0].className = "stack-wide";
    return tr;
  }

  async function load() {
    const answer = await Facedown.api("GET", "/accounts/me/tokens");
    if (!answer.ok) {
      status.textContent = Facedown.problemText(answer);
      return;
    }
    rows.replaceChildren(...answer.data.map(row));
    Facedown.stackLabels(document.getElementById("tokens"));
    status.textContent = answer.data.length ? "" : _("No tokens yet.");
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = { name: data.get("name"), scopes: data.getAll("scopes") };
    if (data.get("expires_in")) body.expires_in = Number(data.get("expires_in"));
    const answer = await Facedown.api("POST", "/accounts/me/tokens", body);
    if (!answer.ok) {
      status.textContent = Facedown.problemText(answer);
      return;
    }
    document.getElementById("token-secret-value").textContent = answer.data.token;
    secretBox.hidden = false;
    form.reset();
    await load();
  });

  load();
})();
