/**
 * The default theme plus the course's components: the step-through player and the transcript
 * viewer (every lesson page gets both, see scripts/docs/pages.ts) and the two pictures (the loop, the pairing rules).
 */
import DefaultTheme from "vitepress/theme";
import type { Theme } from "vitepress";
import IdeaDiagram from "./IdeaDiagram.vue";
import LessonPlayer from "./LessonPlayer.vue";
import LoopDiagram from "./LoopDiagram.vue";
import PairingDiagram from "./PairingDiagram.vue";
import TranscriptViewer from "./TranscriptViewer.vue";
import "./custom.css";

const theme: Theme = {
  extends: DefaultTheme,
  enhanceApp({ app }) {
    app.component("TranscriptViewer", TranscriptViewer);
    app.component("LessonPlayer", LessonPlayer);
    app.component("IdeaDiagram", IdeaDiagram);
    app.component("LoopDiagram", LoopDiagram);
    app.component("PairingDiagram", PairingDiagram);
  },
};

export default theme;
