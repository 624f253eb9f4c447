/* Reporting to the moderators (docs/moderation.md): a small dialog with a reason and an
   optional comment, posted to POST /api/v1/reports. The reported player never learns who
   reported. FacedownReport.button({kind, match, seq, player}) makes the "Report" control. */
"use strict";

const FacedownReport = (() => {
  const { _, api, el, problemText, toast } = Facedown;
  const REASONS = {
    chat_message: ["abuse", "spam", "other"],
    player: ["abuse", "abandonment", "outside_help", "other"],
    match: ["outside_help", "abandonment", "abuse", "other"],
  };
  const WORDS = {
    abuse: _("abuse or insults"),
    abandonment: _("abandons matches"),
    outside_help: _("suspected outside help"),
    spam: _("spam"),
    other: _("something else"),
  };

  function open(subject) {
    const reason = el("select", { id: "report-reason", required: true },
      REASONS[subject.kind].map((value) => el("option", { value }, WORDS[value])));
    const comment = el("textarea", { id: "report-comment", maxlength: "1000", rows: "3" });
    const dialog = el("dialog", { class: "report-dialog", "aria-labelledby": "report-title" });
    const form = el("form", { method: "dialog" },
      el("h2", { id: "report-title" }, _("Report to the moderators")),
      el("p", { class: "muted small-print" }, _("The reported player never learns who reported.")),
      el("div", { class: "field" }, el("label", { for: "report-reason" }, _("Reason")), reason),
      el("div", { class: "field" }, el("label", { for: "report-comment" }, _("Comment (optional)")), comment),
      el("div", { class: "row" },
        el("button", { type: "submit", class: "primary" }, _("Send report")),
        el("button", { type: "button", onclick: () => dialog.close() }, _("Cancel"))));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = { ...subject, reason: reason.value };
      if (comment.value.trim()) body.comment = comment.value.trim();
      const answer = await api("POST", "/reports", body);
      dialog.close();
      toast(answer.ok ? _("Thank you: the moderators have your report.") : problemText(answer));
    });
    dialog.append(form);
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
  }

  /** The "Report" control for one object. */
  function button(subject, label) {
    return el("button", { type: "button", class: "link report", "aria-label": label || _("Report"),
      onclick: () => open(subject) }, _("report"));
  }

  const onMatch = document.getElementById("report-match");
  const match = document.getElementById("match");
  if (onMatch && match) {
    onMatch.addEventListener("click", () => open({ kind: "match", match: match.dataset.matchId }));
  }
  const onPlayer = document.getElementById("report-player");
  if (onPlayer) {
    onPlayer.addEventListener("click", () => open({ kind: "player", player: onPlayer.dataset.player }));
  }

  return { open, button };
})();
