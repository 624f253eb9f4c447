/* Player preferences kept in this browser (localStorage), and their controls on the page.
   confirm-moves: a tap selects a move, a second tap (or the Confirm button) plays it. */
"use strict";

Facedown.prefs = (() => {
  const KEY = "facedown:confirm-moves";

  function confirmMoves() {
    try { return localStorage.getItem(KEY) === "1"; } catch (err) { return false; }
  }

  function setConfirmMoves(on) {
    try { localStorage.setItem(KEY, on ? "1" : "0"); } catch (err) { /* private mode: session only */ }
  }

  document.addEventListener("DOMContentLoaded", () => {
    const box = document.getElementById("confirm-moves");
    if (!box) return;
    box.checked = confirmMoves();
    box.addEventListener("change", () => {
      setConfirmMoves(box.checked);
      document.dispatchEvent(new CustomEvent("facedown:prefs"));
    });
  });

  return { confirmMoves, setConfirmMoves };
})();
