import { randomBytes } from 'node:crypto';

/** A generated code: 40 characters (document 2 C), 160 random bits. */
export const generateCode = () => randomBytes(20).toString('hex');

/** The email shape community checks (invites, pass invitations, slot recipients). */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
