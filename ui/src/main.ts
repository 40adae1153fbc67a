import "./style.css";
import { App } from "./app";

const app = new App();
document.getElementById("app")!.replaceWith(app.root);
void app.start();
