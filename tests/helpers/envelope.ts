import { decodeEnvelope } from '../../src/rpc/envelope';
import { AppError } from '../../src/errors/app-error';

/** The AppError `decodeEnvelope` refuses `text` with; fails the test when it accepts it. */
export function decodeFailure(text: string): AppError {
  try {
    decodeEnvelope(text);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error(`decodeEnvelope accepted ${text.slice(0, 200)}`);
}
