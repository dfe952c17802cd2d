import { z } from 'zod';

/** A BCP 47-looking language code: `en`, `zh-CN`, `fr-CA-u-sd-caqc`. */
export const languageTag = z
  .string()
  .max(35)
  .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,15}$/, {
    message: 'must be a language code such as en or zh-CN',
  });
