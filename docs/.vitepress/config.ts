import { defineConfig, type DefaultTheme } from "vitepress";
import { LESSONS } from "../../runtime/manifest.ts";

function lessonSidebar(): DefaultTheme.SidebarItem[] {
  return LESSONS.map((l) => ({ text: `${l.id} · ${l.title}`, link: `/lessons/${l.dir}` }));
}

export default defineConfig({
  title: "Build an Agent Loop",
  description: "A TypeScript course: from one raw tool call to a guarded coding agent, with the Anthropic SDK.",
  cleanUrls: true,
  lastUpdated: false,
  themeConfig: {
    nav: [
      { text: "Start", link: "/guide/getting-started" },
      { text: "Lessons", link: `/lessons/${LESSONS[0]!.dir}` },
    ],
    sidebar: [
      { text: "Guide", items: [
        { text: "Getting started", link: "/guide/getting-started" },
        { text: "Contributing a lesson", link: "/guide/contributing" },
      ] },
      { text: "Lessons", items: lessonSidebar() },
    ],
    search: { provider: "local" },
  },
});
