/**
 * The built-in authentications, registered under `svc.deploy.` like the
 * components under their families: the `authentication` option names one of
 * them, or a class of your own (`./my_auth.ts#MyAuthentication`).
 * @module
 */
import { register } from "../../components/registry.ts";
import { SvcDemoAuthentication } from "./demo.ts";
import { OpenIDConnectAuthentication } from "./oidc.ts";
import { PasswordAuthentication } from "./password.ts";
import { TrustedProxyAuthentication } from "./trusted_proxy.ts";

/** Every built-in authentication class, by export name: `svc.deploy.<name>`. */
export const AUTHENTICATIONS = {
  SvcDemoAuthentication,
  PasswordAuthentication,
  TrustedProxyAuthentication,
  OpenIDConnectAuthentication,
} as const;

register("svc.deploy", AUTHENTICATIONS);
