// Vue single-file components, for the TypeScript checker (Vite compiles them).
declare module "*.vue" {
  import type { DefineComponent } from "vue";
  const component: DefineComponent<object, object, unknown>;
  export default component;
}
