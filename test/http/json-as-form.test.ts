/**
 * A JSON body sent as a form (curl's `-d` without `-H 'Content-Type: application/json'`) is refused with a 400 that
 * says what happened, in the request's language; real forms are still accepted, as WordPress accepts them, and
 * nothing is written by a refused request (D96).
 */
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { message } from '../../src/i18n/messages';
import { LANGUAGES } from '../../src/config';

const FORM = 'application/x-www-form-urlencoded';

describe.each(ENGINES)('a JSON body sent as a form on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  const post = (path: string, body: string, type: string | undefined = FORM, query = '') => {
    const req = http(service)
      .post(`${NS}/${path}${query}`)
      .auth(...service.as('editor'));
    return (type ? req.set('Content-Type', type) : req).send(body);
  };
  const categoryCount = async () =>
    (await http(service).get(`${NS}/categories?hide_empty=false&per_page=100`)).body.categories?.length ?? 0;

  it.each([
    ['categories', '{"name":"Outdoors","description":"Fresh air"}'],
    ['categories', '  \n{"name":"Outdoors"}'],
    ['tags', '[{"name":"Outdoors"}]'],
    ['categories', '%7B%22name%22%3A%22Outdoors%22%7D'],
    ['venues', '{"venue":"Town hall"}'],
    ['events', '{"title":"Picnic","start_date":"2027-07-01 12:00:00","end_date":"2027-07-01 14:00:00"}'],
  ])('POST /%s with %s as a form is 400 rest_invalid_json naming the fix', async (path, body) => {
    const before = await categoryCount();
    const res = await post(path, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'rest_invalid_json',
      message: message('en', 'json_sent_as_form'),
      data: { status: 400 },
    });
    expect(res.body.message).toContain('Content-Type: application/json');
    expect(await categoryCount()).toBe(before);
  });

  it('says it in the language of the request', async () => {
    for (const language of LANGUAGES) {
      const res = await post('categories', '{"name":"Outdoors"}', FORM, `?i18n_language=${language}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message(language, 'json_sent_as_form'));
      expect(res.headers['content-language']).toBe(language);
    }
    expect(new Set(LANGUAGES.map((l) => message(l, 'json_sent_as_form'))).size).toBe(LANGUAGES.length);
  });

  it('still accepts forms, and the same JSON with its content type', async () => {
    const form = await post('categories', 'name=Form%20made&description=%7Bnot%20json%7D');
    expect(form.status).toBe(201);
    expect(form.body.name).toBe('Form made');
    expect(form.body.description).toBe('{not json}');
    const json = await post('categories', '{"name":"JSON made"}', 'application/json');
    expect(json.status).toBe(201);
    expect(json.body.name).toBe('JSON made');
  });

  it('leaves a form with an empty body to the usual missing-parameter answer', async () => {
    const res = await post('categories', '');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('rest_missing_callback_param');
  });
});
