import type { IpAnswer } from '../../src/engine/answers.js';
import { ipRecord, type IpRecordFull } from '../../src/records/ipRecord.js';

/** The full record's timezone object of an answer at an instant. */
export const timezoneAt = (answer: IpAnswer, iso: string) => (ipRecord(answer, 'full', new Date(iso)) as IpRecordFull).timezone;
