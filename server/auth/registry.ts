/**
 * The built-in authentications, under `svc.deploy.` as the components are
 * under their families: the `authentication` option names one of them, or a
 * class of your own (`./my_auth.ts#MyAuthentication`). Each module is loaded
 * when its class is first asked for.
 * @module
 */
import { CLASS_PATHS, type ClassPaths } from "../../components/class_paths.ts";

/**
 * The module of each built-in authentication, relative to this file, imported by a name Deno does
 * not read ahead (as the components' are, see `BUILTIN_MODULES`); `deploy/compile.ts` includes
 * each in the binary.
 */
export const AUTHENTICATION_MODULES: Readonly<Record<string, string>> = {
  SvcDemoAuthentication: "./demo.ts",
  PasswordAuthentication: "./password.ts",
  TrustedProxyAuthentication: "./trusted_proxy.ts",
  OpenIDConnectAuthentication: "./oidc.ts",
};

/**
 * svc's class paths on the deploy side: the authentications, then the components' (and what
 * `register()` adds to those).
 */
export const SERVER_CLASS_PATHS: ClassPaths = CLASS_PATHS.with(
  "svc.deploy",
  Object.fromEntries(
    Object.entries(AUTHENTICATION_MODULES).map((
      [name, module],
    ) => [name, async () => (await import(module))[name]]),
  ),
);
