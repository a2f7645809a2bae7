/**
 * The default theme plus the course's components: the step-through player and the transcript
 * viewer (every lesson page gets both, see scripts/docs/pages.ts), a picture per lesson
 * (IdeaDiagram, drawn from diagrams.ts), the loop and the pairing rules, the home page's syllabus
 * and the page that shows the loop growing. The home page's hero shows the loop's picture.
 */
import DefaultTheme from "vitepress/theme";
import type { Theme } from "vitepress";
import { h } from "vue";
import CourseSyllabus from "./CourseSyllabus.vue";
import IdeaDiagram from "./IdeaDiagram.vue";
import LessonDiffView from "./LessonDiffView.vue";
import LessonPlayer from "./LessonPlayer.vue";
import LoopDiagram from "./LoopDiagram.vue";
import LoopGrowth from "./LoopGrowth.vue";
import PairingDiagram from "./PairingDiagram.vue";
import TranscriptViewer from "./TranscriptViewer.vue";
import "./custom.css";

const theme: Theme = {
  extends: DefaultTheme,
  Layout: () => h(DefaultTheme.Layout, null, { "home-hero-image": () => h(IdeaDiagram, { lesson: "s01_agent_loop", small: true }) }),
  enhanceApp({ app }) {
    app.component("TranscriptViewer", TranscriptViewer);
    app.component("LessonPlayer", LessonPlayer);
    app.component("LessonDiffView", LessonDiffView);
    app.component("IdeaDiagram", IdeaDiagram);
    app.component("LoopDiagram", LoopDiagram);
    app.component("PairingDiagram", PairingDiagram);
    app.component("CourseSyllabus", CourseSyllabus);
    app.component("LoopGrowth", LoopGrowth);
  },
};

export default theme;
