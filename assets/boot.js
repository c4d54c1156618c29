// Starts the wasm app. It lives in its own file because the page's
// Content-Security-Policy allows no inline script; trunk writes the hashed
// file names into the JSON block with id "distlock-boot" (see Trunk.toml).
const names = JSON.parse(document.getElementById("distlock-boot").textContent);
const { default: init } = await import(names.js);
await init({ module_or_path: names.wasm });
