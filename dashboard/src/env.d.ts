/** Stylesheets are imported for their side effect; Vite emits them as files. */
declare module '*.css';
