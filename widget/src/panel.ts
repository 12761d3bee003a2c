import css from "./x.css?inline";
export function hello() { console.log("hi", css); }
