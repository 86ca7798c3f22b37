/**
 * The built-in source storages, registered as `svc.source_storages.<Name>`.
 * @module
 */
export { SvcDemoSourceStorage } from "./demo.ts";
