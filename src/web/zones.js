// Which country each time zone is in, so the settings name a zone by its
// country in the page's language (issue #49 item 10). Browsers know country
// names (Intl.DisplayNames) but not which country a zone is in. Made from
// Debian's tzdata 2025b: zone.tab, plus the older names browsers still use
// (Asia/Calcutta, Europe/Kiev) from tzdata.zi's links; remade with the
// command in docs/decisions/web-client.md ("Settings") when tzdata adds
// a zone.
const TABLE = `
AD Europe/Andorra
AE Asia/Dubai
AF Asia/Kabul
AG America/Antigua
AI America/Anguilla
AL Europe/Tirane
AM Asia/Yerevan
AO Africa/Luanda
AQ Antarctica/McMurdo Antarctica/Casey Antarctica/Davis Antarctica/DumontDUrville Antarctica/Mawson Antarctica/Palmer Antarctica/Rothera Antarctica/Syowa Antarctica/Troll Antarctica/Vostok
AR America/Buenos_Aires America/Catamarca America/Cordoba America/Jujuy America/Mendoza America/Argentina/ComodRivadavia America/Rosario America/Argentina/Buenos_Aires America/Argentina/Cordoba America/Argentina/Salta America/Argentina/Jujuy America/Argentina/Tucuman America/Argentina/Catamarca America/Argentina/La_Rioja America/Argentina/San_Juan America/Argentina/Mendoza America/Argentina/San_Luis America/Argentina/Rio_Gallegos America/Argentina/Ushuaia
AS Pacific/Samoa Pacific/Pago_Pago
AT Europe/Vienna
AU Australia/ACT Australia/LHI Australia/NSW Australia/North Australia/Queensland Australia/South Australia/Tasmania Australia/Victoria Australia/West Australia/Yancowinna Australia/Canberra Australia/Currie Australia/Lord_Howe Antarctica/Macquarie Australia/Hobart Australia/Melbourne Australia/Sydney Australia/Broken_Hill Australia/Brisbane Australia/Lindeman Australia/Adelaide Australia/Darwin Australia/Perth Australia/Eucla
AW America/Aruba
AX Europe/Mariehamn
AZ Asia/Baku
BA Europe/Sarajevo
BB America/Barbados
BD Asia/Dacca Asia/Dhaka
BE Europe/Brussels
BF Africa/Ouagadougou
BG Europe/Sofia
BH Asia/Bahrain
BI Africa/Bujumbura
BJ Africa/Porto-Novo
BL America/St_Barthelemy
BM Atlantic/Bermuda
BN Asia/Brunei
BO America/La_Paz
BQ America/Kralendijk
BR America/Porto_Acre America/Noronha America/Belem America/Fortaleza America/Recife America/Araguaina America/Maceio America/Bahia America/Sao_Paulo America/Campo_Grande America/Cuiaba America/Santarem America/Porto_Velho America/Boa_Vista America/Manaus America/Eirunepe America/Rio_Branco
BS America/Nassau
BT Asia/Thimbu Asia/Thimphu
BW Africa/Gaborone
BY Europe/Minsk
BZ America/Belize
CA America/Montreal America/Nipigon America/Pangnirtung America/Rainy_River America/Thunder_Bay America/Yellowknife America/St_Johns America/Halifax America/Glace_Bay America/Moncton America/Goose_Bay America/Blanc-Sablon America/Toronto America/Iqaluit America/Atikokan America/Winnipeg America/Resolute America/Rankin_Inlet America/Regina America/Swift_Current America/Edmonton America/Cambridge_Bay America/Inuvik America/Creston America/Dawson_Creek America/Fort_Nelson America/Whitehorse America/Dawson America/Vancouver
CC Indian/Cocos
CD Africa/Kinshasa Africa/Lubumbashi
CF Africa/Bangui
CG Africa/Brazzaville
CH Europe/Busingen Europe/Zurich
CI Africa/Timbuktu Africa/Abidjan
CK Pacific/Rarotonga
CL America/Santiago America/Coyhaique America/Punta_Arenas Pacific/Easter
CM Africa/Douala
CN Asia/Chongqing Asia/Harbin Asia/Kashgar Asia/Chungking Asia/Shanghai Asia/Urumqi
CO America/Bogota
CR America/Costa_Rica
CU America/Havana
CV Atlantic/Cape_Verde
CW America/Curacao
CX Indian/Christmas
CY Europe/Nicosia Asia/Nicosia Asia/Famagusta
CZ Europe/Bratislava Europe/Prague
DE Atlantic/Jan_Mayen Europe/Berlin Europe/Busingen
DJ Africa/Djibouti
DK Europe/Copenhagen
DM America/Dominica
DO America/Santo_Domingo
DZ Africa/Algiers
EC America/Guayaquil Pacific/Galapagos
EE Europe/Tallinn
EG Africa/Cairo
EH Africa/El_Aaiun
ER Africa/Asmara
ES Europe/Madrid Africa/Ceuta Atlantic/Canary
ET Africa/Addis_Ababa
FI Europe/Mariehamn Europe/Helsinki
FJ Pacific/Fiji
FK Atlantic/Stanley
FM Pacific/Chuuk Pacific/Pohnpei Pacific/Kosrae
FO Atlantic/Faeroe Atlantic/Faroe
FR Europe/Paris
GA Africa/Libreville
GB Europe/Belfast Europe/London
GD America/Grenada
GE Asia/Tbilisi
GF America/Cayenne
GG Europe/Guernsey
GH Africa/Accra
GI Europe/Gibraltar
GL America/Godthab America/Nuuk America/Danmarkshavn America/Scoresbysund America/Thule
GM Africa/Banjul
GN Africa/Conakry
GP America/Guadeloupe
GQ Africa/Malabo
GR Europe/Athens
GS Atlantic/South_Georgia
GT America/Guatemala
GU Pacific/Guam
GW Africa/Bissau
GY America/Guyana
HK Asia/Hong_Kong
HN America/Tegucigalpa
HR Europe/Zagreb
HT America/Port-au-Prince
HU Europe/Budapest
ID Asia/Ujung_Pandang Asia/Jakarta Asia/Pontianak Asia/Makassar Asia/Jayapura
IE Europe/Dublin
IL Asia/Tel_Aviv Asia/Jerusalem
IM Europe/Isle_of_Man
IN Asia/Calcutta Asia/Kolkata
IO Indian/Chagos
IQ Asia/Baghdad
IR Asia/Tehran
IS Atlantic/Reykjavik
IT Europe/San_Marino Europe/Vatican Europe/Rome
JE Europe/Jersey
JM America/Jamaica
JO Asia/Amman
JP Asia/Tokyo
KE Africa/Asmera Africa/Nairobi
KG Asia/Bishkek
KH Asia/Phnom_Penh
KI Pacific/Enderbury Pacific/Tarawa Pacific/Kanton Pacific/Kiritimati
KM Indian/Comoro
KN America/St_Kitts
KP Asia/Pyongyang
KR Asia/Seoul
KW Asia/Kuwait
KY America/Cayman
KZ Asia/Almaty Asia/Qyzylorda Asia/Qostanay Asia/Aqtobe Asia/Aqtau Asia/Atyrau Asia/Oral
LA Asia/Vientiane
LB Asia/Beirut
LC America/St_Lucia
LI Europe/Vaduz
LK Asia/Colombo
LR Africa/Monrovia
LS Africa/Maseru
LT Europe/Vilnius
LU Europe/Luxembourg
LV Europe/Riga
LY Africa/Tripoli
MA Africa/Casablanca
MC Europe/Monaco
MD Europe/Tiraspol Europe/Chisinau
ME Europe/Podgorica
MF America/Marigot
MG Indian/Antananarivo
MH Pacific/Majuro Pacific/Kwajalein
MK Europe/Skopje
ML Africa/Bamako
MM Asia/Rangoon Asia/Yangon
MN Asia/Choibalsan Asia/Ulan_Bator Asia/Ulaanbaatar Asia/Hovd
MO Asia/Macao Asia/Macau
MP Pacific/Saipan
MQ America/Martinique
MR Africa/Nouakchott
MS America/Montserrat
MT Europe/Malta
MU Indian/Mauritius
MV Indian/Maldives
MW Africa/Blantyre
MX America/Ensenada America/Santa_Isabel America/Mexico_City America/Cancun America/Merida America/Monterrey America/Matamoros America/Chihuahua America/Ciudad_Juarez America/Ojinaga America/Mazatlan America/Bahia_Banderas America/Hermosillo America/Tijuana
MY Asia/Kuala_Lumpur Asia/Kuching
MZ Africa/Maputo
NA Africa/Windhoek
NC Pacific/Noumea
NE Africa/Niamey
NF Pacific/Norfolk
NG Africa/Lagos
NI America/Managua
NL Europe/Amsterdam
NO Europe/Oslo
NP Asia/Katmandu Asia/Kathmandu
NR Pacific/Nauru
NU Pacific/Niue
NZ Antarctica/South_Pole Pacific/Auckland Pacific/Chatham
OM Asia/Muscat
PA America/Coral_Harbour America/Panama
PE America/Lima
PF Pacific/Tahiti Pacific/Marquesas Pacific/Gambier
PG Pacific/Truk Pacific/Yap Pacific/Port_Moresby Pacific/Bougainville
PH Asia/Manila
PK Asia/Karachi
PL Europe/Warsaw
PM America/Miquelon
PN Pacific/Pitcairn
PR America/Kralendijk America/Lower_Princes America/Marigot America/St_Barthelemy America/Virgin America/Puerto_Rico
PS Asia/Gaza Asia/Hebron
PT Europe/Lisbon Atlantic/Madeira Atlantic/Azores
PW Pacific/Palau
PY America/Asuncion
QA Asia/Qatar
RE Indian/Reunion
RO Europe/Bucharest
RS Europe/Podgorica Europe/Belgrade
RU Europe/Kaliningrad Europe/Moscow Europe/Kirov Europe/Volgograd Europe/Astrakhan Europe/Saratov Europe/Ulyanovsk Europe/Samara Asia/Yekaterinburg Asia/Omsk Asia/Novosibirsk Asia/Barnaul Asia/Tomsk Asia/Novokuznetsk Asia/Krasnoyarsk Asia/Irkutsk Asia/Chita Asia/Yakutsk Asia/Khandyga Asia/Vladivostok Asia/Ust-Nera Asia/Magadan Asia/Sakhalin Asia/Srednekolymsk Asia/Kamchatka Asia/Anadyr
RW Africa/Kigali
SA Asia/Riyadh
SB Pacific/Ponape Pacific/Guadalcanal
SC Indian/Mahe
SD Africa/Khartoum
SE Europe/Stockholm
SG Asia/Singapore
SH Atlantic/St_Helena
SI Europe/Ljubljana
SJ Arctic/Longyearbyen
SK Europe/Bratislava
SL Africa/Freetown
SM Europe/San_Marino
SN Africa/Dakar
SO Africa/Mogadishu
SR America/Paramaribo
SS Africa/Juba
ST Africa/Sao_Tome
SV America/El_Salvador
SX America/Lower_Princes
SY Asia/Damascus
SZ Africa/Mbabane
TC America/Grand_Turk
TD Africa/Ndjamena
TF Indian/Kerguelen
TG Africa/Lome
TH Asia/Bangkok
TJ Asia/Dushanbe
TK Pacific/Fakaofo
TL Asia/Dili
TM Asia/Ashkhabad Asia/Ashgabat
TN Africa/Tunis
TO Pacific/Tongatapu
TR Asia/Istanbul Europe/Istanbul
TT America/Port_of_Spain
TV Pacific/Funafuti
TW Asia/Taipei
TZ Africa/Dar_es_Salaam
UA Europe/Uzhgorod Europe/Zaporozhye Europe/Kiev Europe/Simferopol Europe/Kyiv
UG Africa/Kampala
UM Pacific/Midway Pacific/Wake
US America/Indianapolis America/Knox_IN America/Louisville America/Atka America/Fort_Wayne America/Shiprock Pacific/Johnston America/New_York America/Detroit America/Kentucky/Louisville America/Kentucky/Monticello America/Indiana/Indianapolis America/Indiana/Vincennes America/Indiana/Winamac America/Indiana/Marengo America/Indiana/Petersburg America/Indiana/Vevay America/Chicago America/Indiana/Tell_City America/Indiana/Knox America/Menominee America/North_Dakota/Center America/North_Dakota/New_Salem America/North_Dakota/Beulah America/Denver America/Boise America/Phoenix America/Los_Angeles America/Anchorage America/Juneau America/Sitka America/Metlakatla America/Yakutat America/Nome America/Adak Pacific/Honolulu
UY America/Montevideo
UZ Asia/Samarkand Asia/Tashkent
VA Europe/Vatican
VC America/St_Vincent
VE America/Caracas
VG America/Tortola
VI America/St_Thomas
VN Asia/Saigon Asia/Ho_Chi_Minh
VU Pacific/Efate
WF Pacific/Wallis
WS Pacific/Apia
YE Asia/Aden
YT Indian/Mayotte
ZA Africa/Johannesburg
ZM Africa/Lusaka
ZW Africa/Harare
`;

/// The ISO 3166 code of the country a zone is in, or "" (UTC, Etc/...).
export const countryOf = (() => {
  const of = new Map();
  for (const line of TABLE.trim().split("\n")) {
    const [country, ...zones] = line.split(" ");
    for (const zone of zones) of.set(zone, country);
  }
  return (zone) => of.get(zone) || "";
})();

/// The cities people pick most, in Korean (issue #68). Browsers name
/// countries in Korean (Intl.DisplayNames) but no city; **decision:** these
/// 58 cities read in Korean, every other zone by its city as the
/// zone id spells it (Asia/Omsk reads "Omsk"), which is still unmistakable.
const CITIES_KO = {
  "Asia/Seoul": "서울",
  "Asia/Tokyo": "도쿄",
  "Asia/Shanghai": "상하이",
  "Asia/Hong_Kong": "홍콩",
  "Asia/Taipei": "타이베이",
  "Asia/Singapore": "싱가포르",
  "Asia/Bangkok": "방콕",
  "Asia/Ho_Chi_Minh": "호찌민",
  "Asia/Saigon": "호찌민",
  "Asia/Manila": "마닐라",
  "Asia/Jakarta": "자카르타",
  "Asia/Kuala_Lumpur": "쿠알라룸푸르",
  "Asia/Kolkata": "콜카타",
  "Asia/Calcutta": "콜카타",
  "Asia/Dubai": "두바이",
  "Asia/Ulaanbaatar": "울란바토르",
  "Asia/Vladivostok": "블라디보스토크",
  "Asia/Pyongyang": "평양",
  "Asia/Tashkent": "타슈켄트",
  "Asia/Almaty": "알마티",
  "Europe/Moscow": "모스크바",
  "Europe/Istanbul": "이스탄불",
  "Europe/Berlin": "베를린",
  "Europe/Paris": "파리",
  "Europe/London": "런던",
  "Europe/Madrid": "마드리드",
  "Europe/Rome": "로마",
  "Europe/Amsterdam": "암스테르담",
  "Europe/Vienna": "빈",
  "Europe/Prague": "프라하",
  "Europe/Warsaw": "바르샤바",
  "Europe/Stockholm": "스톡홀름",
  "Europe/Helsinki": "헬싱키",
  "Europe/Zurich": "취리히",
  "Europe/Brussels": "브뤼셀",
  "America/New_York": "뉴욕",
  "America/Chicago": "시카고",
  "America/Denver": "덴버",
  "America/Los_Angeles": "로스앤젤레스",
  "America/Vancouver": "밴쿠버",
  "America/Toronto": "토론토",
  "America/Mexico_City": "멕시코시티",
  "America/Sao_Paulo": "상파울루",
  "America/Buenos_Aires": "부에노스아이레스",
  "America/Argentina/Buenos_Aires": "부에노스아이레스",
  "America/Anchorage": "앵커리지",
  "America/Phoenix": "피닉스",
  "Pacific/Honolulu": "호놀룰루",
  "Pacific/Auckland": "오클랜드",
  "Pacific/Guam": "괌",
  "Australia/Sydney": "시드니",
  "Australia/Melbourne": "멜버른",
  "Australia/Brisbane": "브리즈번",
  "Australia/Perth": "퍼스",
  "Africa/Cairo": "카이로",
  "Africa/Johannesburg": "요하네스버그",
  "Africa/Lagos": "라고스",
  "Africa/Nairobi": "나이로비",
};

/// A zone's city in `lang`.
export function cityOf(zone, lang) {
  return (lang === "ko" && CITIES_KO[zone]) || zone.split("/").pop().replace(/_/g, " ");
}
