/** The API description's version (spec: 1.0.0); its own module so light commands need not load the app. */
export const VERSION = "1.0.0";
