// cgledger's page, a little enhanced: a click on a map hex fills the Control form; the page reloads itself when the
// log moves (server-sent events), unless the player is filling in a form, who is told instead. Works without it.
(function () {
  "use strict";
  var map = document.getElementById("map");
  if (map) {
    map.addEventListener("click", function (e) {
      var hex = e.target.closest("[data-hex]");
      var field = document.getElementById("control-hex");
      if (!hex || !field) return;
      field.value = hex.getAttribute("data-hex");
      field.focus();
      field.scrollIntoView({ block: "center" });
    });
  }
  var dirty = false;
  document.addEventListener("input", function () { dirty = true; });
  document.addEventListener("submit", function () { dirty = true; });
  if (document.body.dataset.live !== "on" || !window.EventSource) return;
  var since = document.body.dataset.version || "0";
  var source = new EventSource("/events?v=" + encodeURIComponent(since));
  // a page left (or kept in the back-forward cache) lets its connection go: a browser holds few per server
  window.addEventListener("pagehide", function () { source.close(); });
  source.addEventListener("changed", function () {
    if (dirty) {
      document.getElementById("changed").hidden = false;
    } else {
      source.close();
      window.location.reload();
    }
  });
})();
