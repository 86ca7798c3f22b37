/**
 * The built-in authentications, registered under `svc.deploy.` like the
 * components under their families: the `authentication` option names one of
 * them, or a class of your own (`./my_auth.ts#MyAuthentication`). Each module
 * is loaded when its class is first asked for.
 * @module
 */
import { registerLoaders } from "../../components/class_paths.ts";

registerLoaders("svc.deploy", {
  SvcDemoAuthentication: async () => (await import("./demo.ts")).SvcDemoAuthentication,
  PasswordAuthentication: async () => (await import("./password.ts")).PasswordAuthentication,
  TrustedProxyAuthentication: async () =>
    (await import("./trusted_proxy.ts")).TrustedProxyAuthentication,
  OpenIDConnectAuthentication: async () => (await import("./oidc.ts")).OpenIDConnectAuthentication,
});
