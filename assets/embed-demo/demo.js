// The demo course page (docs/embed.md): buttons in the text send commands
// to the two embeds through the host-page API, and every event the embeds
// send comes back to the line under them, as it happens. The page keeps
// what it heard in `window.distlockDemo.events` (the browser test reads it).

const frames = [...document.querySelectorAll("iframe")];
const line = document.getElementById("events-line");
const list = document.getElementById("events");
const heard = [];

/** Sends `command` (an object without `type`) to the frame with element id `frameId`. */
function send(frameId, command) {
  const frame = document.getElementById(frameId);
  // Only the embed's own origin may read the command.
  frame.contentWindow.postMessage({ type: "distlock", ...command }, new URL(frame.src).origin);
}

/** One event in words. */
function words(e) {
  switch (e.event) {
    case "ready": return `ready (${e.story ?? "a run"} on ${e.system}, fencing ${e.fencing ? "on" : "off"})`;
    case "moment": return `key moment ${e.n} of ${e.of}: ${e.caption}`;
    case "grant": return `${e.client} was granted the lock (token ${e.token ?? "none"})`;
    case "expired": return `the service ended ${e.client}'s lease`;
    case "write": return `${e.client}'s write with token ${e.token ?? "none"}: ${e.outcome}`;
    case "corrupted": return `corrupted: ${e.text}`;
    case "tour-end": return "the tour is over";
    case "height": return `height ${e.px} px`;
    case "description": return e.text;
    case "error": return `error: ${e.reason}`;
    default: return e.event;
  }
}

addEventListener("message", (message) => {
  const e = message.data;
  if (!e || e.type !== "distlock" || typeof e.event !== "string") return;
  // The event's own frame: the one whose window sent it.
  const frame = frames.find((f) => f.contentWindow === message.source);
  if (!frame) return;
  heard.push({ ...e, frame: frame.id });
  if (e.event === "height") {
    frame.style.height = `${e.px}px`;
    return;
  }
  const said = `${e.id}: ${words(e)}`;
  line.textContent = said;
  const item = document.createElement("li");
  item.textContent = said;
  if (e.event === "error") item.className = "is-error";
  list.append(item);
  list.scrollTop = list.scrollHeight;
});

for (const button of document.querySelectorAll("button[data-frame]")) {
  button.addEventListener("click", () => send(button.dataset.frame, JSON.parse(button.dataset.command)));
}

window.distlockDemo = { send, events: heard };
