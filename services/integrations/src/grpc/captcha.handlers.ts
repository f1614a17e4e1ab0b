import type { AsyncImplementation } from '@masthead/core/grpc';
import type { CaptchaServiceService } from '@masthead/proto/integrations/captcha';
import type { CaptchaService } from '../captcha/captcha.service.js';
import { toCaptchaSummary } from './platform.wire.js';

export function captchaHandlers(captcha: CaptchaService): AsyncImplementation<typeof CaptchaServiceService> {
  return {
    getCaptchaSettings: async ({ resourceId }) => {
      const settings = await captcha.publicSettings(resourceId);
      return { active: settings.active, publicKey: settings.publicKey ?? undefined };
    },
    setCaptchaSettings: async ({ resourceId, active, publicKey, secretKey }) =>
      toCaptchaSummary(resourceId, await captcha.set({ resourceId, active, publicKey, secretKey })),
    getCaptchaSummary: async ({ resourceId }) => toCaptchaSummary(resourceId, await captcha.summary(resourceId)),
  };
}
