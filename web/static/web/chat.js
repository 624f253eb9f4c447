/* The match chat panel: polls GET /api/v1/matches/{id}/chat?after=N, posts for seated players,
   mutes a sender (for you, everywhere). Messages are not match events and never touch the
   match's ETag.

   Hook for a live stream: call FacedownChat.receive(message) with a message as the API returns
   it (e.g. from a `chat` SSE event); messages are kept by `seq`, so a message that also arrives
   by polling is shown once, and polling picks up anything the stream missed with ?after=. */
"use strict";

const FacedownChat = (() => {
  const { _, api, el, problemText, toast, localTime } = Facedown;
  const $ = (id) => document.getElementById(id);
  const root = $("match");
  const panel = $("chat-panel");
  const matchId = root ? root.dataset.matchId : null;
  const me = root ? root.dataset.username : null;
  const POLL_MS = 4000;
  const messages = new Map(); // seq -> message
  let after = 0;
  let seated = false;
  let enabled = true;
  let timer = null;

  function render() {
    const list = $("chat-log");
    const sorted = [...messages.values()].sort((a, b) => a.seq - b.seq);
    list.replaceChildren(...sorted.map((m) => el("li", { class: "chat-line", dataset: { seq: String(m.seq) } },
      el("span", { class: "chat-who" }, m.player), " ",
      m.hidden ? el("em", { class: "muted" }, _("(hidden by an operator)")) : el("span", { class: "chat-text" }, m.text),
      " ", el("time", { class: "muted chat-at", datetime: m.at }, localTime(m.at)),
      m.player !== me ? el("button", { type: "button", class: "link chat-mute",
        "aria-label": _("Mute %(player)s", m), onclick: () => mute(m.player) }, _("mute")) : null,
      me && m.player !== me && typeof FacedownReport !== "undefined"
        ? [" ", FacedownReport.button({ kind: "chat_message", match: matchId, seq: m.seq },
          _("Report the message of %(player)s", m))] : null)));
    $("chat-empty").hidden = sorted.length > 0;
    list.scrollTop = list.scrollHeight;
  }

  /** Add messages (from polling or a stream) and draw them. */
  function receive(...incoming) {
    for (const m of incoming.flat()) {
      if (!m || typeof m.seq !== "number") continue;
      messages.set(m.seq, m);
      after = Math.max(after, m.seq);
    }
    render();
  }

  async function poll() {
    clearTimeout(timer);
    if (!enabled) return;
    try {
      for (let page = 0; page < 20; page++) {
        const answer = await api("GET", `/matches/${matchId}/chat?after=${after}`);
        if (answer.status === 409) { disable(); return; }
        if (!answer.ok) break;
        receive(answer.data.results);
        after = Math.max(after, answer.data.last_seq); // past muted senders' messages
        if (!answer.data.next) break;
      }
    } finally {
      if (enabled) timer = setTimeout(poll, document.hidden ? POLL_MS * 4 : POLL_MS);
    }
  }

  function disable() {
    enabled = false;
    panel.hidden = true;
  }

  async function send(event) {
    event.preventDefault();
    const input = $("chat-text");
    const text = input.value.trim();
    if (!text) return;
    $("chat-send").disabled = true;
    try {
      const answer = await api("POST", `/matches/${matchId}/chat`, { text });
      if (answer.ok) {
        input.value = "";
        receive(answer.data);
      } else toast(problemText(answer));
    } finally {
      $("chat-send").disabled = false;
    }
  }

  async function mute(player) {
    if (!window.confirm(_("Mute %(player)s? You will no longer see their messages in any match.", { player }))) return;
    const answer = await api("POST", "/chat/mutes", { player, muted: true });
    if (!answer.ok) { toast(problemText(answer)); return; }
    for (const [seq, m] of messages) if (m.player === player) messages.delete(seq);
    render();
    toast(_("%(player)s is muted.", { player }));
  }

  async function start() {
    if (!panel || !matchId) return;
    const answer = await api("GET", `/matches/${matchId}`);
    if (!answer.ok) return;
    if (answer.data.chat === false) { disable(); return; }
    seated = answer.data.you !== null && answer.data.you !== undefined;
    panel.hidden = false;
    $("chat-form").hidden = !seated;
    $("chat-spectator").hidden = seated;
    $("chat-form").addEventListener("submit", send);
    document.addEventListener("visibilitychange", () => { if (!document.hidden) poll(); });
    poll();
  }

  start();
  return { receive, poll };
})();
