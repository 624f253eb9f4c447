/* Facedown web client: the shared helpers. Talks only to the JSON API under /api/v1 with the
   session cookie; unsafe requests carry the CSRF token from the csrftoken cookie. */
"use strict";

const Facedown = (() => {
  const API = "/api/v1";

  /** The page language's text for ``text`` (the catalogue /jsi18n serves), with
      ``%(name)s`` filled from ``values``: _("Step %(step)s", {step: 3}). */
  function _(text, values) {
    return values ? interpolate(gettext(text), values, true) : gettext(text);
  }

  /** The game catalogue's own texts (GET /games serves them in English) in the page's
      language, from the table the page carries (web/context.py). */
  const CATALOGUE = JSON.parse((document.getElementById("catalogue-words") || {}).textContent || "{}");
  function said(text) {
    return (text && CATALOGUE[text]) || text;
  }

  function cookie(name) {
    for (const part of document.cookie.split(";")) {
      const [key, ...rest] = part.trim().split("=");
      if (key === name) return decodeURIComponent(rest.join("="));
    }
    return "";
  }

  /** One API call. Resolves to {status, ok, data, etag}; data is the parsed JSON (or null). */
  async function api(method, path, body, headers = {}) {
    const init = {
      method,
      credentials: "same-origin",
      cache: "no-store", // we send our own If-None-Match and want to see the 304
      headers: { Accept: "application/json", ...headers },
    };
    if (method !== "GET") {
      init.headers["X-CSRFToken"] = cookie("csrftoken");
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body === undefined ? {} : body);
    }
    const response = await fetch(API + path, init);
    let data = null;
    if (response.status !== 304 && response.status !== 204) {
      const text = await response.text();
      data = text ? JSON.parse(text) : null;
    }
    return { status: response.status, ok: response.ok, data, etag: response.headers.get("ETag") };
  }

  /** A readable message from a problem+json answer. */
  function problemText(answer) {
    const p = answer && answer.data;
    if (!p) return answer ? _("Request failed (%(status)s)", { status: answer.status }) : _("Request failed (network)");
    let text = p.detail || p.title || _("Request failed (%(status)s)", { status: answer.status });
    if (p.errors) {
      const lines = Object.entries(p.errors).map(([k, v]) => k + ": " + [].concat(v).join(" "));
      text += " — " + lines.join("; ");
    }
    return text;
  }

  /** JSON with keys sorted at every level and no whitespace (the commitment's canonical move). */
  function canonical(value) {
    if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
    if (value !== null && typeof value === "object") {
      const keys = Object.keys(value).sort();
      return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
    }
    return JSON.stringify(value);
  }

  function hex(bytes) {
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  /** 32 lowercase hex characters from the browser's CSPRNG. */
  function randomHex(bytes = 16) {
    const buf = new Uint8Array(bytes);
    crypto.getRandomValues(buf);
    return hex(buf);
  }

  /** A client seed for join: [A-Za-z0-9_-]{1,64}. */
  function clientSeed() {
    return randomHex(16);
  }

  /** Lowercase hex SHA-256 of a UTF-8 string (Web Crypto; a plain-JS fallback where the page is
      not a secure context and crypto.subtle is missing). */
  async function sha256hex(text) {
    const data = new TextEncoder().encode(text);
    if (window.crypto && crypto.subtle) {
      return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", data)));
    }
    return sha256Fallback(data);
  }

  function sha256Fallback(bytes) {
    const K = [
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
      0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
      0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
      0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
      0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
      0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
      0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
      0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2,
    ];
    const H = [
      0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
      0x5be0cd19,
    ];
    const length = bytes.length;
    const padded = new Uint8Array(((length + 9 + 63) >> 6) << 6);
    padded.set(bytes);
    padded[length] = 0x80;
    const view = new DataView(padded.buffer);
    view.setUint32(padded.length - 8, Math.floor((length * 8) / 2 ** 32));
    view.setUint32(padded.length - 4, (length * 8) >>> 0);
    const w = new Uint32Array(64);
    const rotr = (x, n) => (x >>> n) | (x << (32 - n));
    for (let off = 0; off < padded.length; off += 64) {
      for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
      for (let i = 16; i < 64; i++) {
        const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
        const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
        w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
      }
      let [a, b, c, d, e, f, g, h] = H;
      for (let i = 0; i < 64; i++) {
        const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) >>> 0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
        h = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
      }
      H[0] = (H[0] + a) >>> 0; H[1] = (H[1] + b) >>> 0; H[2] = (H[2] + c) >>> 0;
      H[3] = (H[3] + d) >>> 0; H[4] = (H[4] + e) >>> 0; H[5] = (H[5] + f) >>> 0;
      H[6] = (H[6] + g) >>> 0; H[7] = (H[7] + h) >>> 0;
    }
    return H.map((x) => x.toString(16).padStart(8, "0")).join("");
  }

  /** The commitment (docs/fairness.md, "Commitments"): sha256 of facedown-move-v1|match|step|seat|canonical move|salt. */
  function commitment(matchId, step, seat, move, salt) {
    // Concatenated rather than a template literal, which xgettext (makemessages) misreads.
    return sha256hex("facedown-move-v1|" + matchId + "|" + step + "|" + seat + "|" + canonical(move) + "|" + salt);
  }

  // The keys of the games' views and moves as the generic match page names them, listed here
  // so the catalogue holds them (words() looks each up at run time).
  const KEY_WORDS = [
    gettext_noop("flip"), gettext_noop("play"), gettext_noop("take"), gettext_noop("cash in"), gettext_noop("claim"), gettext_noop("call"),
    gettext_noop("discard"), gettext_noop("give"), gettext_noop("kill"), gettext_noop("hit"), gettext_noop("miss"), gettext_noop("life"),
    gettext_noop("sacrifice"), gettext_noop("orangutan"), gettext_noop("grid"), gettext_noop("hand"), gettext_noop("hands"), gettext_noop("hand size"),
    gettext_noop("hand count"), gettext_noop("hand counts"), gettext_noop("scores"), gettext_noop("points"), gettext_noop("pot"), gettext_noop("next pot"),
    gettext_noop("deal"), gettext_noop("deals"), gettext_noop("turn"), gettext_noop("turns"), gettext_noop("trick"), gettext_noop("tricks"),
    gettext_noop("trick number"), gettext_noop("current"), gettext_noop("next"), gettext_noop("winner"), gettext_noop("caller"), gettext_noop("target"),
    gettext_noop("seat"), gettext_noop("seats"), gettext_noop("players"), gettext_noop("phase"), gettext_noop("mode"), gettext_noop("history"),
    gettext_noop("step"), gettext_noop("over"), gettext_noop("won"), gettext_noop("taken"), gettext_noop("taken by"), gettext_noop("piles"),
    gettext_noop("removed"), gettext_noop("removed points"), gettext_noop("discarded"), gettext_noop("deck"), gettext_noop("stock"), gettext_noop("pool"),
    gettext_noop("discard top"), gettext_noop("discard count"), gettext_noop("cards left"), gettext_noop("cards"), gettext_noop("pairs"), gettext_noop("pairs left"),
    gettext_noop("pair"), gettext_noop("owner"), gettext_noop("holder"), gettext_noop("life cards"), gettext_noop("life count"), gettext_noop("life counts"),
    gettext_noop("sacrificed"), gettext_noop("calls"), gettext_noop("calls made"), gettext_noop("max calls"), gettext_noop("total calls"), gettext_noop("claims"),
    gettext_noop("cash ins"), gettext_noop("collections"), gettext_noop("exposed"), gettext_noop("pending"), gettext_noop("seen"), gettext_noop("showing"),
    gettext_noop("shown by"), gettext_noop("flipped"), gettext_noop("results"), gettext_noop("status"), gettext_noop("reason"), gettext_noop("completed"),
    gettext_noop("forfeit"), gettext_noop("resigned"), gettext_noop("declined"), gettext_noop("creator left"), gettext_noop("illegal reveal"), gettext_noop("timeout"),
    gettext_noop("vulture"), gettext_noop("mice"), gettext_noop("deal results"), gettext_noop("game results"), gettext_noop("game number"), gettext_noop("rounds"),
    gettext_noop("leader"), gettext_noop("starting player"), gettext_noop("penalties"), gettext_noop("orangutans left"), gettext_noop("undealt"), gettext_noop("turned down"),
    gettext_noop("refill"), gettext_noop("critical"), gettext_noop("first"), gettext_noop("blank"), gettext_noop("another turn on pair"), gettext_noop("strict memory"),
    gettext_noop("flips visible to"), gettext_noop("turn direction"), gettext_noop("deforestation penalty"), gettext_noop("start draw"), gettext_noop("takes"), gettext_noop("suicide"),
    gettext_noop("variant"), gettext_noop("total"), gettext_noop("under"), gettext_noop("kind"), gettext_noop("history mode"), gettext_noop("table only"), gettext_noop("full"),
    gettext_noop("starting hand"), gettext_noop("game"), gettext_noop("games"), gettext_noop("placeholder note"),
    gettext_noop("additional"), gettext_noop("requires"), gettext_noop("name"), gettext_noop("id"), gettext_noop("layout"), gettext_noop("clockwise"), gettext_noop("counterclockwise"), gettext_noop("placeholder"), gettext_noop("card"), gettext_noop("outcome"),
    gettext_noop("position"), gettext_noop("start"), gettext_noop("starts")
  ];

  function words(key) {
    return gettext(String(key).replace(/_/g, " "));
  }

  function valueLabel(value) {
    if (value === null) return _("none");
    if (value === true) return _("yes");
    if (value === false) return _("no");
    if (Array.isArray(value)) return value.map(valueLabel).join(", ");
    // A sentence the catalogue knows, or an identifier ("table_only") in words.
    if (typeof value === "string") return CATALOGUE[value] || (/^[a-z][a-z_]*$/.test(value) ? words(value) : value);
    if (typeof value === "object") {
      return Object.entries(value).map(([k, v]) => words(k) + " " + valueLabel(v)).join(", ");
    }
    return String(value);
  }

  /** A readable label for a move: {"flip": 3} → "flip 3", {"cash_in": null} → "cash in none". */
  function moveLabel(move) {
    return Object.entries(move).map(([k, v]) => words(k) + " " + valueLabel(v)).join(" · ");
  }

  /** What the page may show of a move the player made: Xato's life cards and sacrifices are
   *  kept even from their owner (the rules), so the page never prints them back either. */
  function shownMove(move) {
    return "life" in move || "sacrifice" in move ? _("your sealed choice") : moveLabel(move);
  }

  /* The one date-and-time format of every page, in the page's language (not the browser's):
     "Mon, Dec 7, 2026, 02:17 PM" in English, "Mo., 7. Dez. 2026, 14:17" in German. */
  const pageLanguage = () => document.documentElement.lang || undefined;
  let timeFormat = null;
  let dayFormat = null;

  function localTime(iso) {
    if (!iso) return "";
    timeFormat = timeFormat || new Intl.DateTimeFormat(pageLanguage(), {
      weekday: "short", year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
    });
    return timeFormat.format(new Date(iso));
  }

  /** A calendar day ("2026-12-12", as a date input holds it) in the same words: "Sat, Dec 12, 2026". */
  function localDay(day) {
    if (!day) return "";
    dayFormat = dayFormat || new Intl.DateTimeFormat(pageLanguage(), {
      weekday: "short", year: "numeric", month: "short", day: "numeric", timeZone: "UTC",
    });
    return dayFormat.format(new Date(`${day.slice(0, 10)}T00:00:00Z`));
  }

  /** A date or date-and-time input shows its value in the browser's own format (Chromium
      follows the browser's locale, not the page's): the chosen moment is repeated under it in
      the page's format, in an output the input names as its description. */
  function echoDate(input) {
    const out = el("output", { id: `${input.id}-said`, class: "date-said muted", for: input.id });
    const ids = (input.getAttribute("aria-describedby") || "").split(" ").filter(Boolean);
    input.setAttribute("aria-describedby", [...ids, out.id].join(" "));
    const show = () => {
      out.textContent = !input.value ? ""
        : _("Chosen: %(when)s", { when: input.type === "date" ? localDay(input.value) : localTime(new Date(input.value).toISOString()) });
    };
    input.addEventListener("input", show);
    input.addEventListener("change", show);
    input.after(out);
    show();
    return show;
  }

  /** Labels each cell of a ``table.stack`` with its column's heading, for the stacked layout
      on a phone (app.css); a visually hidden heading labels nothing. */
  function stackLabels(table) {
    const heads = [...table.querySelectorAll("thead th")].map((th) =>
      (th.querySelector(".visually-hidden") ? "" : th.textContent.trim()));
    for (const row of table.tBodies[0] ? table.tBodies[0].rows : []) {
      [...row.cells].forEach((cell, i) => { if (heads[i]) cell.dataset.label = heads[i]; });
    }
  }

  function countdown(iso) {
    const ms = new Date(iso).getTime() - Date.now();
    if (ms <= 0) return _("time is up");
    const s = Math.floor(ms / 1000);
    const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600);
    const m = Math.floor((s % 3600) / 60), sec = s % 60;
    if (d > 0) return _("%(d)s d %(h)s h left", { d, h });
    if (h > 0) return _("%(h)s h %(m)s min left", { h, m });
    if (m > 0) return _("%(m)s min %(s)s s left", { m, s: String(sec).padStart(2, "0") });
    return _("%(s)s s left", { s: sec });
  }

  /** Create an element: el("button", {class: "x", onclick: f}, "text", child, ...). */
  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "class") node.className = value;
      else if (key === "dataset") Object.assign(node.dataset, value);
      else if (value === true) node.setAttribute(key, "");
      else node.setAttribute(key, value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /** Says ``text`` to screen readers only (a visually hidden live region): a confirmation the
      page already shows (the card played, the move committed) needs no box over the table. */
  function announce(text) {
    const box = document.getElementById("quiet-status");
    if (box) box.textContent = text;
  }

  function toast(text) {
    const box = document.getElementById("toast");
    if (!box) return;
    box.textContent = text;
    box.classList.add("show");
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => box.classList.remove("show"), 4000);
  }

  function seatName(seat) {
    if (!seat) return "?";
    if (seat.player) return seat.player;
    if (seat.bot) return _("bot (%(name)s)", { name: seat.bot });
    return _("open seat");
  }

  /** Whether the requester is awaited in this match resource (to_act, not yet submitted). */
  function awaitingMe(match) {
    const phase = match.phase || {};
    return (
      match.status === "active" &&
      match.you !== null && match.you !== undefined &&
      (phase.to_act || []).includes(match.you) &&
      !(phase.submitted || []).includes(match.you)
    );
  }

  // ---- live updates (docs/live.md) -----------------------------------------------------------

  /** Follow a stream with EventSource: a ticket (EventSource sends no headers) opens it and
      its automatic reconnects for 60 s; after that a fresh ticket re-opens it, resuming after
      the last seq seen. ``onItem(type, data, seq)`` gets every item. Falls back by calling
      ``onGiveUp()`` once when streams are unavailable (no EventSource, or three failed opens in
      a row, e.g. a WSGI-only server), and ``onDown()`` whenever the connection drops (it is
      re-opened). Returns {close}. */
  function follow(name, path, types, onItem, onGiveUp, onDown = () => {}) {
    let source = null;
    let closed = false;
    let failures = 0;
    let lastSeq = null;
    async function open() {
      if (closed) return;
      if (typeof EventSource === "undefined" || failures >= 3) { closed = true; onGiveUp(); return; }
      let answer;
      try { answer = await api("POST", "/accounts/stream-ticket", { streams: [name] }); }
      catch (err) { answer = { ok: false }; }
      if (!answer.ok) { failures++; setTimeout(open, 2000 * failures); return; }
      const resume = lastSeq !== null ? `&last_event_id=${lastSeq}` : "";
      source = new EventSource(`${API}${path}?ticket=${encodeURIComponent(answer.data.ticket)}${resume}`);
      for (const type of ["snapshot", ...types]) {
        source.addEventListener(type, (message) => {
          failures = 0;
          if (message.lastEventId) lastSeq = Number(message.lastEventId);
          onItem(type, JSON.parse(message.data), lastSeq);
        });
      }
      source.onerror = () => {
        onDown();
        // EventSource retries by itself while its ticket is good; once the server refuses
        // (an expired ticket, no stream here) it stops: open again with a new ticket.
        if (source.readyState === EventSource.CLOSED) {
          failures++;
          setTimeout(open, 1000 * failures);
        }
      };
    }
    open();
    return { close() { closed = true; if (source) source.close(); } };
  }

  /** "(2) Facedown": the number of matches waiting for the player, kept in the page title. */
  let waitingCount = 0;
  function titleSet(base) {
    document.title = (waitingCount ? "(" + waitingCount + ") " : "") + base;
    titleSet.base = base;
  }
  async function waitingRefresh() {
    const answer = await api("GET", "/matches?awaiting_me=true&page_size=200");
    if (!answer.ok) return;
    waitingCount = answer.data.results.length;
    titleSet(titleSet.base || document.title.replace(/^\(\d+\) /, ""));
  }

  /** The user stream: keeps the title count, and shows a browser notification for "your
      move" while the tab is hidden (only when the player granted the permission), and calls
      ``onChange(type, data)`` on every notification. */
  function followMe(onChange = () => {}) {
    const kinds = ["your_move", "step_resolved", "match_started", "match_finished", "invited", "deadline_soon", "seat_offered",
      "challenge", "challenge_declined", "challenge_canceled"];
    follow("me", "/accounts/me/stream", kinds, (type, data) => {
      if (type === "snapshot") {
        waitingCount = data.awaiting_me.length;
        titleSet(titleSet.base || document.title.replace(/^\(\d+\) /, ""));
        return;
      }
      waitingRefresh();
      onChange(type, data);
      const notable = ["your_move", "deadline_soon", "invited", "seat_offered", "challenge"].includes(type);
      if (notable && document.hidden && typeof Notification !== "undefined" &&
          Notification.permission === "granted") {
        const text = { your_move: _("Your move"), deadline_soon: _("Your move is due soon"), invited: _("You are invited"),
          seat_offered: _("A seat is offered to you"), challenge: _("You are challenged") }[type];
        new Notification(`${text} · Facedown`, { body: data.game || "", tag: `facedown-${data.match || data.id}` });
      }
    }, () => {});
  }

  return {
    _, said, KEY_WORDS, api, problemText, canonical, sha256hex, sha256Fallback, commitment, randomHex, clientSeed,
    moveLabel, shownMove, valueLabel, words, localTime, localDay, echoDate, stackLabels, countdown, el, toast,
    announce, seatName, awaitingMe,
    follow, followMe, titleSet, waitingRefresh,
  };
})();
