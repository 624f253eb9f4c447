/* The time-control fields (web/templates/web/_time_control.html) shared by the lobby's match
   form and the tournament form: the clocks offered and the time_control body they make. */
"use strict";

Facedown.clockForm = (() => {
  const { _ } = Facedown;
  const $ = (id) => document.getElementById(id);

  // The clocks the form offers (docs/api.md, "Time control"); correspondence ones (a day or
  // more) may pause on weekends.
  const DAY = 86400;
  const CLOCKS = {
    day: { kind: "per_step", per_step_seconds: DAY },
    fischer: { kind: "fischer", initial_seconds: 3 * DAY, increment_seconds: DAY, max_seconds: 7 * DAY },
    byoyomi: { kind: "byoyomi", main_seconds: 3 * DAY, periods: 5, period_seconds: DAY },
  };

  const CLOCK_HELP = {
    none: "",
    timed: _("Every step has the same time; nothing carries over."),
    day: _("Correspondence: a day for every step."),
    fischer: _("Correspondence (Fischer): a bank of 3 days; each move adds a day, up to 7 days."),
    byoyomi: _("Correspondence (byo-yomi): a bank of 3 days, then 5 periods of a day; a move within a period keeps it."),
  };

  function timeControlShow() {
    const kind = $("tc-kind").value;
    $("tc-help").textContent = CLOCK_HELP[kind] || "";
    $("tc-timed").hidden = kind !== "timed";
    $("tc-weekends").hidden = !(kind in CLOCKS);
    $("tc-after").hidden = kind === "none";
  }

  function readTimeControl() {
    const kind = $("tc-kind").value;
    const on_timeout = $("tc-timeout").value;
    if (kind === "timed") return { kind: "per_step", per_step_seconds: Number($("tc-seconds").value), on_timeout };
    if (!(kind in CLOCKS)) return null;
    return { ...CLOCKS[kind], on_timeout, weekend_pause: $("tc-weekend-pause").checked };
  }

  return { timeControlShow, readTimeControl };
})();
