import type { Model, mongo } from 'mongoose';

/**
 * The driver's collection behind a model, typed by the model's rows. Hot paths read and write
 * through it: mongoose's query and document layers cost 0.1–0.25 ms of CPU an operation, a fair
 * share of a session check or a refresh (ADR 0191). The caller writes every field itself (no
 * defaults, casting or validation) and gets plain rows back, as with `.lean()`.
 */
export const rowsOf = <T extends object>(model: Model<T>): mongo.Collection<T> => model.collection as unknown as mongo.Collection<T>;
