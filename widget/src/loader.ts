const s = document.currentScript;
document.body.append(String(s));
import("./panel.ts").then((m) => m.hello());
