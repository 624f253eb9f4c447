/* Facedown web client: conditional bids on the match page (docs/api.md, "Conditional moves").
   Only the seat's holder reads them (GET /matches/{id}/conditional-moves); every change sends
   the whole ordered list again (PUT). They are read once per step: a played rule is gone. */
"use strict";

Facedown.conditional = (() => {
  const F = Facedown;
  const { _, el } = F;

  /** "12, 13" → [12, 13]; "" or "any" → null (any pot); anything else → undefined. */
  function potOf(text) {
    const words = text.trim().toLowerCase();
    if (words === "" || words === "any" || words === _("any").toLowerCase()) return null;
    const values = words.split(/[\s,;]+/).map(Number);
    return values.every(Number.isInteger) ? values : undefined;
  }

  function ruleText(rule) {
    const pot = rule.pot === null ? _("When the pot is anything") :
      _("When the pot is %(values)s", { values: rule.pot.join(_(" or ")) });
    return _("%(when)s, bid %(card)s", { when: pot, card: rule.card });
  }

  function setup(matchId) {
    const $ = (id) => document.getElementById(id);
    const path = `/matches/${matchId}/conditional-moves`;
    let rules = [];
    let readAt = null; // the step the rules were read in
    let error = null;

    function draw() {
      $("conditional-rules").replaceChildren(...rules.map((rule, i) => el("li", {},
        ruleText(rule), " ",
        el("button", { type: "button", class: "link", onclick: () => save(rules.filter((_r, j) => j !== i)) }, _("Remove")))));
      $("conditional-empty").hidden = rules.length > 0;
      $("conditional-clear").hidden = rules.length === 0;
      $("conditional-error").hidden = !error;
      $("conditional-error").textContent = error || "";
    }

    async function answered(answer) {
      if (answer.ok) { rules = answer.data.rules; error = null; } else { error = F.problemText(answer); }
      draw();
    }

    const save = async (next) => answered(await F.api("PUT", path, { rules: next }));

    $("conditional-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const pot = potOf($("conditional-pot").value);
      const card = Number($("conditional-card").value);
      if (pot === undefined || !Number.isInteger(card)) {
        error = _("Write the pot values as whole numbers, separated by commas (empty: any pot).");
        draw();
        return;
      }
      save([...rules, { pot, card }]).then(() => { if (!error) $("conditional-pot").value = ""; });
    });
    $("conditional-clear").addEventListener("click", async () => answered(await F.api("DELETE", path)));

    /** Show the editor to a seat that may hold rules; read them again once per step. */
    function render(match) {
      const seat = match.you === null || match.you === undefined ? null : match.seats[match.you];
      const on = Boolean(match.conditional_moves) && match.status === "active" && Boolean(seat) && !seat.forfeited;
      $("conditional").hidden = !on;
      if (!on || readAt === match.step) return;
      readAt = match.step;
      F.api("GET", path).then(answered);
    }

    return { render };
  }

  return { setup, potOf };
})();
